/**
 * What bubblewrap takes away beyond the mounts: every capability (root included, so remount,
 * mount, mknod and unshare fail in the sandbox) and, where this bwrap can (0.8 and later), any new
 * user namespace inside it (in one, a script would hold every capability over its own mounts).
 */
import { spawnSync } from "node:child_process"

/** The private /tmp's size when --tmp-size is not given: it is RAM. */
export const DEFAULT_TMP_SIZE = 1024 ** 3

let help: string | undefined

/** Whether this bwrap knows the option (from its --help, read once). */
function knows(bwrap: string, option: string): boolean {
  help ??= spawnSync(bwrap, ["--help"], { encoding: "utf8", timeout: 5000 }).stdout ?? ""
  return help.includes(option)
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
