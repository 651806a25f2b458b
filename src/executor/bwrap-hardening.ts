/**
 * What bubblewrap takes away beyond the mounts: every capability (root included, so remount,
 * mount, mknod and unshare fail in the sandbox) and, where this bwrap can (0.8 and later), any new
 * user namespace inside it (in one, a script would hold every capability over its own mounts).
 */
import { readFileSync, statSync } from "node:fs"

/** The private /tmp's size when --tmp-size is not given: it is RAM. */
export const DEFAULT_TMP_SIZE = 1024 ** 3

let help: string | undefined

/** Whether this bwrap knows the option (from its usage text, read once). */
function knows(bwrap: string, option: string): boolean {
  help ??= usageText(bwrap)
  return help.includes(option)
}

/**
 * The option names bwrap's --help lists. They are in the executable as its usage text: reading
 * them there spares every sandboxed start a run of `bwrap --help` (a few milliseconds). A bwrap
 * that is not the real program (a wrapper script) is asked.
 */
function usageText(bwrap: string): string {
  try {
    const path = Bun.which(bwrap) ?? bwrap
    if (statSync(path).size <= 4 * 2 ** 20) {
      const text = readFileSync(path, "latin1")
      if (text.includes("--ro-bind") && text.includes("--unshare-pid")) return text
    }
  } catch {
    // not a file here: ask it
  }
  try {
    return Bun.spawnSync([bwrap, "--help"], { stdin: "ignore", stdout: "pipe", stderr: "ignore", timeout: 5000 }).stdout.toString()
  } catch {
    return ""
  }
}

/**
 * A user namespace of its own with the same uid and gid, no way to make another inside, and no
 * capabilities. An older bwrap (without --disable-userns) still drops every capability.
 */
export function noCapabilities(bwrap: string): string[] {
  const userns = knows(bwrap, "--disable-userns") ? ["--unshare-user", "--disable-userns"] : []
  return [...userns, "--cap-drop", "ALL"]
}

/** The private /tmp, bounded to `bytes` where this bwrap can size a tmpfs (0.8 and later). */
export function privateTmp(bwrap: string, bytes = DEFAULT_TMP_SIZE): string[] {
  return [...(knows(bwrap, "--size") ? ["--size", String(bytes)] : []), "--tmpfs", "/tmp"]
}

/**
 * /dev/shm as a tmpfs of its own, bounded like /tmp, and the rest of bwrap's /dev read-only: that
 * /dev is a tmpfs of half the machine's RAM, and tmpfs pages outlive the script that wrote them,
 * so filling it could bring the out-of-memory killer onto the host's processes. Only where this
 * bwrap can size a tmpfs; the device nodes stay writable (they are mounts of their own).
 */
export function boundedDev(bwrap: string, bytes = DEFAULT_TMP_SIZE): string[] {
  return knows(bwrap, "--size") ? ["--size", String(bytes), "--tmpfs", "/dev/shm", "--remount-ro", "/dev"] : []
}

/**
 * The kernel's settings read-only. Root in the sandbox is still the host's root (kuid 0) in
 * bubblewrap's user namespace, and the kernel grants writes to /proc/sys by that uid alone,
 * capabilities or not: `kernel.core_pattern = |/workspace/x` would have the kernel run x as root
 * on the host at the next crash. bwrap covers only /proc/sys entries it finds writable, which it
 * does not. The host's /proc/sys shows the same values: a setting reads the namespaces of whoever
 * opens it, not those of the proc mount.
 */
export const READ_ONLY_SETTINGS = ["--ro-bind", "/proc/sys", "/proc/sys"]
