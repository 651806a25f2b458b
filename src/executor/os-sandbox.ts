/**
 * The OS sandbox an executor runs in. On Linux a bubblewrap (`bwrap`) container with its own pid,
 * ipc and uts namespaces (and network, unless allowed), the root read-only, the workspace, a
 * private /tmp and the --writable roots writable; where bubblewrap cannot create namespaces,
 * Landlock and seccomp (landlock-plan.ts, landlock-exec.ts). On macOS `sandbox-exec` with a
 * generated profile. The executor inside enforces the same policy in its fs tools
 * (src/tools/write-policy.ts).
 */
import { existsSync, realpathSync } from "node:fs"
import { resolve } from "node:path"
import type { SandboxMode, SandboxPolicy } from "../contract.ts"
import { protectedBinds, protectedPaths } from "../tools/protected-paths.ts"
import { searchIndexDir } from "../tools/semantic/location.ts"
import { boundedDev, DEFAULT_TMP_SIZE, noCapabilities, privateTmp, READ_ONLY_SETTINGS } from "./bwrap-hardening.ts"
import { hideCredentialStores } from "./credential-stores.ts"
import { coverHostSockets } from "./host-sockets.ts"
import { landlockPlan, writePlan } from "./landlock-plan.ts"
import { LANDLOCK_EXEC } from "./landlock-step.ts"
import { makePrivateTmp } from "./landlock-tmp.ts"
import { underProcessLimit } from "./process-bound.ts"
import { type BackendRequest, bwrapBinary, bwrapMissing, chooseBackend, forcedFailed, landlockMissing, noSandbox, type SandboxBackend } from "./sandbox-backend.ts"
import { boundPaths, realPath } from "./sandbox-paths.ts"
import { selfCommand } from "./self.ts"
import { INSIDE_VARIABLE } from "./inside.ts"
import { withFreshKeyring } from "./session-keyring.ts"

/** What the user asked for: a mode, or `auto` (workspace-write; refused where no OS sandbox can run). */
export type SandboxRequest = SandboxMode | "auto"

/** Whether bubblewrap can run here (with `probe`, create its namespaces too); on macOS, sandbox-exec. */
export function osSandboxWorks(probe = true): boolean {
  if (process.platform === "darwin") return existsSync("/usr/bin/sandbox-exec")
  return bwrapMissing(probe) === undefined
}

/**
 * The policy in effect for a request, with the backend that will enforce it. No backend that can
 * run is a usage error, also for `auto`: the default never runs scripts unsandboxed. Without
 * `probe`, bubblewrap is taken when installed (a start that fails in bwrap falls back, connect.ts).
 */
export async function resolveSandbox(
  request: SandboxRequest,
  network: boolean,
  writable: readonly string[],
  options: { probe?: boolean; backend?: BackendRequest } & Pick<SandboxPolicy, "tmpSize" | "readable"> = {},
): Promise<{ policy: SandboxPolicy }> {
  const policy = (mode: SandboxMode, backend?: SandboxBackend): SandboxPolicy => ({
    mode,
    network: mode === "off" ? true : network,
    writable: writable.map((dir) => resolve(dir)),
    ...(options.tmpSize === undefined ? {} : { tmpSize: options.tmpSize }),
    ...(options.readable?.length ? { readable: options.readable.map((path) => resolve(path)) } : {}),
    ...(backend ? { backend } : {}),
  })
  if (request === "off") return { policy: policy("off") }
  const backend = await chooseBackend(options.backend ?? "auto", request, options.probe ?? true)
  return { policy: policy(request === "auto" ? "workspace-write" : request, backend) }
}

/**
 * The policy to start again with when bubblewrap, installed, failed to start (`reason`, its own
 * words): Landlock, unless bwrap was forced or Landlock cannot run either (a usage error then).
 */
export async function afterBwrapFailed(policy: SandboxPolicy, request: SandboxRequest, backend: BackendRequest, reason: string): Promise<SandboxPolicy> {
  const why = `bubblewrap (${bwrapBinary()}) cannot run here (${reason})`
  if (backend === "bwrap") throw forcedFailed("bwrap", why)
  const landlock = await landlockMissing()
  if (landlock) throw noSandbox(request, [why, landlock])
  return { ...policy, backend: "landlock" }
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
  if (policy.backend === "landlock") return landlockArgv(argv, workspace, policy, needs)
  const bind = policy.mode === "workspace-write" ? "--bind" : "--ro-bind"
  const args = [bwrapBinary(), "--ro-bind", "/", "/", "--dev", "/dev", ...boundedDev(bwrapBinary(), policy.tmpSize), "--proc", "/proc", ...READ_ONLY_SETTINGS, ...privateTmp(bwrapBinary(), policy.tmpSize)]
  // The private /tmp hides whatever lived under the real one: what the executor needs from there
  // (the program, when clanka itself runs from /tmp; an MCP server's script) comes back read-only.
  // Also when the workspace is under the same top directory: only the workspace itself is bound
  // (after this, so it stays writable), not its siblings (an uploaded clanka in a cache beside it).
  for (const path of [...argv, ...(needs.readable ?? [])]) {
    for (const top of underTmp(path)) if (!args.includes(top)) args.push("--ro-bind", top, top)
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
  return withFreshKeyring(args, selfCommand())
}

/**
 * `argv` run by `clanka __landlock-exec`, which restricts itself to the plan and executes it (or,
 * when argv is this clanka's executor, goes on as it: landlock-in-place.ts); a private temporary
 * directory is made for it (released with the sandbox, landlock-tmp.ts).
 */
function landlockArgv(argv: string[], workspace: string, policy: SandboxPolicy, needs: SandboxNeeds): string[] {
  const tmp = makePrivateTmp()
  const plan = landlockPlan({
    workspace,
    policy,
    tmp,
    cwd: needs.cwd ?? workspace,
    readable: [...argv, ...(needs.readable ?? [])],
    index: searchIndexBind(needs.search, workspace),
    env: { [INSIDE_VARIABLE]: "1" },
  })
  // In a file: a large HOME makes a plan longer than one argument may be (128 KiB).
  return [...selfCommand(), LANDLOCK_EXEC, writePlan(plan), "--", ...argv]
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

/**
 * The directories `/tmp/x` an existing path needs: where it lies after symlinks, and where it is
 * named, when a symlink under /tmp leads elsewhere (node_modules linked into a clone in /tmp).
 */
function underTmp(path: string): string[] {
  if (!path.startsWith("/")) return []
  let real: string
  try {
    real = realpathSync(path)
  } catch {
    return []
  }
  const tops = [resolve(path), real].flatMap((name) => name.match(/^\/tmp\/[^/]+/)?.[0] ?? [])
  return [...new Set(tops)]
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
export function sandboxFlags(policy: Pick<SandboxPolicy, "network" | "writable" | "tmpSize" | "readable"> & { mode: SandboxRequest; backend?: SandboxBackend | BackendRequest }): string[] {
  return [
    "--sandbox",
    policy.mode,
    ...(policy.backend === "bwrap" || policy.backend === "landlock" ? ["--sandbox-backend", policy.backend] : []),
    ...(policy.network ? ["--network"] : []),
    ...policy.writable.flatMap((dir) => ["--writable", dir]),
    ...(policy.tmpSize === undefined || policy.tmpSize === DEFAULT_TMP_SIZE ? [] : ["--tmp-size", String(policy.tmpSize)]),
    ...(policy.readable ?? []).flatMap((path) => ["--readable", path]),
  ]
}
