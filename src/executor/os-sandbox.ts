/**
 * The OS sandbox an executor runs in: on Linux a bubblewrap (`bwrap`) container with its own pid,
 * ipc and uts namespaces (and network, unless allowed), the root read-only, the workspace, a
 * private /tmp and the --writable roots writable; on macOS `sandbox-exec` with a generated profile.
 * The executor inside enforces the same policy in its fs tools (src/tools/write-policy.ts).
 */
import { spawnSync } from "node:child_process"
import { existsSync, realpathSync } from "node:fs"
import { resolve } from "node:path"
import type { SandboxMode, SandboxPolicy } from "../contract.ts"
import { UsageError } from "../errors.ts"
import { protectedBinds, protectedPaths } from "../tools/protected-paths.ts"
import { searchIndexDir } from "../tools/semantic/location.ts"
import { DEFAULT_TMP_SIZE, noCapabilities, privateTmp } from "./bwrap-hardening.ts"
import { hideCredentialStores } from "./credential-stores.ts"
import { coverHostSockets } from "./host-sockets.ts"
import { underProcessLimit } from "./process-bound.ts"
import { boundPaths, realPath } from "./sandbox-paths.ts"

/** Set inside the sandbox, so that the executor there serves instead of sandboxing itself again. */
export const INSIDE_VARIABLE = "CLANKA_SANDBOX_INSIDE"

/** What the user asked for: a mode, or `auto` (workspace-write where the OS sandbox works, else off). */
export type SandboxRequest = SandboxMode | "auto"

const INSTALL_HINT = "install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap)"

function bwrapBinary(): string {
  return process.env.CLANKA_BWRAP || "bwrap"
}

let works: boolean | undefined
/**
 * Whether the OS sandbox can be had here. Without `probe`, that bwrap is installed (a start that
 * then fails in bwrap falls back, see connect.ts); with it, that bwrap may also create the namespaces,
 * which costs a run of bwrap (about 5 ms).
 */
export function osSandboxWorks(probe = true): boolean {
  if (process.platform === "darwin") return existsSync("/usr/bin/sandbox-exec")
  if (process.platform !== "linux") return false
  if (!probe) return Bun.which(bwrapBinary()) !== null
  works ??= spawnSync(bwrapBinary(), ["--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--die-with-parent", "true"], {
    stdio: "ignore",
    timeout: 5000,
  }).status === 0
  return works
}


/**
 * The mode in effect for a request: `auto` falls back to off (with `warning` to print once) where
 * the OS sandbox cannot be had; an explicit mode that cannot be had is a usage error.
 */
export function resolveSandbox(
  request: SandboxRequest,
  network: boolean,
  writable: readonly string[],
  options: { probe?: boolean } & Pick<SandboxPolicy, "tmpSize" | "readable"> = {},
): { policy: SandboxPolicy; warning?: string } {
  const policy = (mode: SandboxMode): SandboxPolicy => ({
    mode,
    network: mode === "off" ? true : network,
    writable: writable.map((dir) => resolve(dir)),
    ...(options.tmpSize === undefined ? {} : { tmpSize: options.tmpSize }),
    ...(options.readable?.length ? { readable: options.readable.map((path) => resolve(path)) } : {}),
  })
  if (request === "off") return { policy: policy("off") }
  if (osSandboxWorks(options.probe)) return { policy: policy(request === "auto" ? "workspace-write" : request) }
  return unavailable(request, policy("off"))
}

/** The answer when the OS sandbox cannot be had: off with a warning for `auto`, else a usage error. */
export function unavailable(request: SandboxRequest, off: SandboxPolicy, reason?: string): { policy: SandboxPolicy; warning: string } {
  const what =
    process.platform === "darwin"
      ? "sandbox-exec is not available"
      : `bubblewrap (${bwrapBinary()}) ${reason ? `cannot run here (${reason})` : "is not available or cannot create namespaces here"}`
  if (request === "auto") {
    return {
      policy: off,
      warning: `${what}, so scripts run without the OS sandbox; ${INSTALL_HINT}, or pass --sandbox off to say this is intended`,
    }
  }
  throw new UsageError(`--sandbox ${request} needs the OS sandbox, but ${what}; ${INSTALL_HINT}, or pass --sandbox off`)
}

/** What a sandboxed executor needs beside its policy. */
export interface SandboxNeeds {
  /** It offers search: this workspace's index directory is writable. */
  search: boolean
  /** Other paths it must read (MCP servers' programs and scripts). */
  readable?: readonly string[]
  /** Where the command starts (default: the workspace). */
  cwd?: string
}

/** `argv` run inside the OS sandbox for `workspace` (absolute); argv itself when the mode is off. */
export function sandboxedArgv(argv: string[], workspace: string, policy: SandboxPolicy, needs: SandboxNeeds): string[] {
  if (policy.mode === "off") return argv
  if (process.platform === "darwin") return ["/usr/bin/sandbox-exec", "-p", seatbeltProfile(workspace, policy, needs.search), ...argv]
  const bind = policy.mode === "workspace-write" ? "--bind" : "--ro-bind"
  const args = [bwrapBinary(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", ...privateTmp(bwrapBinary(), policy.tmpSize)]
  // The private /tmp hides whatever lived under the real one: what the executor needs from there
  // (the program, when clanka itself runs from /tmp; an MCP server's script) comes back read-only.
  // Also when the workspace is under the same top directory: only the workspace itself is bound
  // (after this, so it stays writable), not its siblings (an uploaded clanka in a cache beside it).
  for (const path of [...argv, ...(needs.readable ?? [])]) {
    const top = underTmp(path)
    if (top && !args.includes(top)) args.push("--ro-bind", top, top)
  }
  args.push(bind, workspace, workspace)
  const index = searchIndexBind(needs.search, workspace)
  if (index) args.push("--bind", index, index)
  if (policy.mode === "workspace-write") for (const dir of policy.writable) if (existsSync(dir)) args.push("--bind", dir, dir)
  if (policy.mode === "workspace-write") args.push(...protectedBinds(workspace, policy.writable))
  args.push(...shutOut(args, argv, workspace, policy, needs))
  args.push(...noCapabilities(bwrapBinary()), "--unshare-pid", "--unshare-ipc", "--unshare-uts")
  if (!policy.network) args.push("--unshare-net")
  args.push("--die-with-parent", "--new-session", "--setenv", "TMPDIR", "/tmp", "--setenv", INSIDE_VARIABLE, "1")
  args.push("--chdir", needs.cwd ?? workspace, "--", ...underProcessLimit(argv))
  return args
}

/**
 * What the sandbox hides beyond the read-only root, given the binds made so far (`args`): the
 * credential stores (unless --readable), and with the network off the host's unix sockets.
 */
function shutOut(args: readonly string[], argv: readonly string[], workspace: string, policy: SandboxPolicy, needs: SandboxNeeds): string[] {
  const bound = boundPaths(args)
  const real = (paths: readonly string[]) => paths.flatMap((path) => (path.startsWith("/") ? (realPath(path) ?? []) : []))
  const readable = real(policy.readable ?? [])
  // What the executor needs (argv names its program, and repeats the --readable paths).
  const keep = real([workspace, ...policy.writable, ...argv, ...(needs.readable ?? []), ...bound.filter((path) => path !== "/")])
  const hidden = hideCredentialStores({ readable, keep: keep.filter((path) => !readable.includes(path)), bound })
  const sockets = policy.network ? [] : coverHostSockets({ bound, hiddenDirs: hidden.dirs })
  return [...hidden.args, ...sockets]
}

/**
 * The one directory outside the workspace the executor writes in every mode: this workspace's
 * search index, unless search is off. It must exist already (prepareSearchIndexDir): the sandbox
 * cannot create it, and without it the index is kept in memory.
 */
function searchIndexBind(search: boolean, workspace: string): string | undefined {
  if (!search) return undefined
  const dir = searchIndexDir(workspace)
  return existsSync(dir) ? dir : undefined
}

/** `/tmp/x` for an existing path under /tmp (after symlinks), else undefined. */
function underTmp(path: string): string | undefined {
  if (!path.startsWith("/")) return undefined
  let real: string
  try {
    real = realpathSync(path)
  } catch {
    return undefined
  }
  const match = real.match(/^\/tmp\/[^/]+/)
  return match?.[0]
}

/** A sandbox-exec profile with the same rule (macOS; written here, not run on this project's machines). */
export function seatbeltProfile(workspace: string, policy: SandboxPolicy, search: boolean): string {
  const quote = (path: string) => JSON.stringify(path)
  const writable = policy.mode === "workspace-write" ? [workspace, ...policy.writable, "/private/tmp", "/private/var/folders"] : []
  const index = searchIndexBind(search, workspace)
  if (index) writable.push(index)
  const rules = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    `(allow file-write* (literal "/dev/null") (literal "/dev/tty")${writable.map((dir) => ` (subpath ${quote(dir)})`).join("")})`,
  ]
  // Later rules win: the protected paths (existing or not) stay read-only inside the writable ones.
  if (policy.mode === "workspace-write") rules.push(...protectedPaths(workspace, policy.writable).map((path) => `(deny file-write* (subpath ${quote(path)}))`))
  if (!policy.network) rules.push("(deny network*)", '(allow network* (remote ip "localhost:*"))', '(allow network* (local ip "localhost:*"))')
  return rules.join("\n")
}

/** The `clanka executor` flags that ask for `policy` (`--sandbox MODE [--network] [--writable DIR]…`). */
export function sandboxFlags(policy: Pick<SandboxPolicy, "network" | "writable" | "tmpSize" | "readable"> & { mode: SandboxRequest }): string[] {
  return [
    "--sandbox",
    policy.mode,
    ...(policy.network ? ["--network"] : []),
    ...policy.writable.flatMap((dir) => ["--writable", dir]),
    ...(policy.tmpSize === undefined || policy.tmpSize === DEFAULT_TMP_SIZE ? [] : ["--tmp-size", String(policy.tmpSize)]),
    ...(policy.readable ?? []).flatMap((path) => ["--readable", path]),
  ]
}
