/**
 * Turns the command line's choice of executor into an Executor: this process (default), any
 * command speaking the protocol (`--executor CMD`), or clanka on another machine (`--ssh`).
 */
import { realpathSync } from "node:fs"
import { checkDirectory } from "../util/check-directory.ts"
import { resolve } from "node:path"
import type { Capabilities, CapabilitiesRequest, Executor, SandboxPolicy } from "../contract.ts"
import { ExecutorLostError, UsageError } from "../errors.ts"
import { executorEnv, withoutAgentKeys } from "./executor-env.ts"
import { spawnExecutor } from "./executor-process.ts"
import { landlockStepEnv } from "./landlock-plan.ts"
import { afterBwrapFailed, resolveSandbox, sandboxedArgv, sandboxFlags, type SandboxRequest } from "./os-sandbox.ts"
import type { ProtectedState } from "./landlock-protect.ts"
import { releasePrivateTmps } from "./landlock-tmp.ts"
import { heldInPidsCgroup, inPidsCgroup, type ProcessBound } from "./process-bound.ts"
import { type BackendRequest, BWRAP_STALE_ATTEMPTS, bwrapRaced, bwrapReason, bwrapStarts, forgetBwrapStarts } from "./sandbox-backend.ts"
import { selfCommand } from "./self.ts"
import { SHELL_VERSION_VARIABLE } from "./shell-version.ts"
import { parseSshTarget } from "./ssh-target.ts"

export interface ConnectOptions {
  /**
   * Local: the working directory (default: cwd). With --ssh: the remote directory when HOST has
   * no `:DIR` (pass it only when the user gave -C, otherwise the remote starts in its home).
   * Refused with --executor: the command chooses its own directory (`clanka executor -C DIR`).
   */
  directory?: string
  /** A shell command line that speaks the executor protocol on its stdio. */
  executor?: string
  /** `[USER@]HOST[:DIR]`, run through the system ssh so ~/.ssh/config applies. */
  ssh?: string
  /** The clanka binary on the remote host (default $CLANKA_REMOTE_BIN, then `clanka`). */
  remoteBin?: string
  /**
   * Where a local executor runs: in this process (the default, for library users), or as a child
   * process — this same clanka, `clanka executor` — with an allow-listed environment and inside
   * the OS sandbox (the command line: the agent's keys never enter the executor).
   */
  local?: "in-process" | "child"
  /** The OS sandbox asked for (default `auto`); with --ssh the remote executor applies it. */
  sandbox?: SandboxRequest
  /** Which OS sandbox enforces it (default `auto`: bubblewrap, else Landlock). */
  sandboxBackend?: BackendRequest
  network?: boolean
  writable?: string[]
  /** Credential stores left visible to scripts (--readable). */
  readable?: string[]
  /** Bytes the sandbox's /tmp may hold (--tmp-size). */
  tmpSize?: number
  /** A local child's sandbox, once the child is spawned (before it has answered); not told when a bwrap that is to enforce it cannot start here. */
  onPolicy?(policy: SandboxPolicy): void
  /** Scripts the executor runs at once (--max-scripts; default: the executor's own). */
  maxScripts?: number
  /** Further variables the child executor gets (--env NAME). */
  env?: string[]
  /** Offer the search tool (default true; --no-search). */
  search?: boolean
  /** A search is likely: make the index directory a sandboxed local executor may write. */
  searchLikely?: boolean
  /** Told as soon as the executor's process (or ssh) exists, before it has answered. */
  onSpawn?(): void
  /** Told once per MCP server that failed, and what the executor found and left out. */
  onWarning?(line: string): void
  /**
   * MCP servers the executor starts (stdio) and agent-side MCP tools it offers, at the handshake.
   * A sandboxed remote `clanka executor` starts stdio servers beside its sandbox; for a local child
   * the command line starts them beside it itself (executor-flags.ts) and sends only their tools.
   */
  mcp?: CapabilitiesRequest
  /**
   * With --ssh, when the host lacks clanka: copy this binary there (default true; --no-upload).
   * Only a compiled clanka can: from source there is no binary to copy.
   */
  upload?: boolean
  /** Where the progress of an upload goes (default: stderr). */
  progress?: { write(text: string): unknown; isTTY?: boolean }
}

export async function connectExecutor(options: ConnectOptions): Promise<Executor> {
  const executor = await connect(options)
  // The handshake started the MCP servers: one line for each that failed; the run goes on.
  const announced = (executor as { announced?: Capabilities }).announced
  for (const line of announced?.warnings ?? []) options.onWarning?.(line)
  for (const { server, error } of announced?.mcpFailures ?? []) {
    if (!options.mcp?.agentMcpFailures?.some((failure) => failure.server === server)) {
      options.onWarning?.(`MCP server "${server}" failed: ${error}; its tools are missing`)
    }
  }
  return executor
}

async function connect(options: ConnectOptions): Promise<Executor> {
  if (options.executor !== undefined && options.ssh !== undefined) {
    throw new UsageError("--executor and --ssh both choose the executor; pass only one of them")
  }
  if (options.executor !== undefined) {
    if (options.executor.trim() === "") throw new UsageError("--executor needs a command line, e.g. --executor \"clanka executor -C /srv/app\"")
    if (options.directory !== undefined) {
      throw new UsageError(`-C does not apply to --executor: put it in the executor command, e.g. --executor "clanka executor -C ${options.directory}"`)
    }
    for (const [flag, given] of [["--no-search", options.search === false], ["--sandbox", options.sandbox !== undefined], ["--sandbox-backend", options.sandboxBackend !== undefined && options.sandboxBackend !== "auto"], ["--network", options.network], ["--writable", options.writable?.length], ["--readable", options.readable?.length], ["--tmp-size", options.tmpSize !== undefined], ["--max-scripts", options.maxScripts !== undefined], ["--env", options.env?.length]] as const) {
      if (given) throw new UsageError(`${flag} does not apply to --executor: put it in the executor command, e.g. --executor "clanka executor --sandbox read-only"`)
    }
    const { RemoteExecutor } = await import("./remote.ts")
    return RemoteExecutor.start({ argv: ["/bin/sh", "-c", options.executor], env: withoutAgentKeys(), label: options.executor, capabilitiesRequest: options.mcp, ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}) })
  }
  if (options.ssh !== undefined) {
    if (options.env?.length) throw new UsageError("--env applies to a local executor; on a remote host the executor has the host's environment")
    const { connectSsh } = await import("./ssh.ts")
    return connectSsh(parseSshTarget(options.ssh), options)
  }
  if (options.directory !== undefined) await checkDirectory(options.directory)
  const directory = resolve(options.directory ?? ".")
  if (options.local !== "child") {
    const { LocalExecutor } = await import("./local.ts")
    return new LocalExecutor({
      directory,
      search: options.search !== false,
      ...(options.mcp ? { mcp: options.mcp } : {}),
      ...(options.maxScripts === undefined ? {} : { maxScripts: options.maxScripts }),
    })
  }
  const workspace = realpathSync(directory)
  const request = options.sandbox ?? "auto"
  const backend = options.sandboxBackend ?? "auto"
  const writable = options.writable ?? []
  // No probe of bwrap first (it costs a run of bwrap): a start that fails in bwrap falls back.
  const { policy } = await resolveSandbox(request, options.network ?? false, writable, { probe: false, backend, tmpSize: options.tmpSize, readable: options.readable })
  // The early first request is built for the first sandbox tried: under bubblewrap only once it
  // is known to start here (else the run falls back to Landlock below and the request would be
  // made again). Told once that sandbox is spawned: nothing before the spawn waits for the check.
  let tell = options.onPolicy
  const tellPolicy = (policy: SandboxPolicy) => {
    const told = tell
    tell = undefined
    if (!told) return
    if (policy.backend === "bwrap") void bwrapStarts().then((starts) => starts && told(policy))
    else told(policy)
  }
  if (options.search !== false && options.searchLikely && policy.mode !== "off") {
    const { prepareSearchIndexDir } = await import("../tools/semantic/location.ts")
    prepareSearchIndexDir(workspace)
  }
  const { rememberedShell } = await import("./probe-cache.ts")
  // The shell's version this process remembered for the same bash: the executor need not run it.
  const version = rememberedShell()
  const shell = version === undefined ? {} : { [SHELL_VERSION_VARIABLE]: version }
  const start = async (policy: SandboxPolicy) => {
    // Landlock cannot keep the protected paths read-only: they are put back after each script.
    // Under either Linux backend a git directory's hooks, config or commondir a script made is removed.
    const protect = policy.mode === "workspace-write" && (policy.backend === "landlock" || policy.backend === "bwrap") ? await import("./landlock-protect.ts") : undefined
    let state: ProtectedState | undefined
    const env = { ...executorEnv(options.env), ...shell }
    const executor = await withProcessBound(policy, sandboxedArgv([...selfCommand(), "executor", "-C", workspace, ...sandboxFlags(policy), ...noSearch(options), ...maxScriptsFlag(options)], workspace, policy, { search: options.search !== false, readable: mcpPaths(options) }), async (bound) => {
      // Spawned first: the protocol's modules load while the sandbox starts.
      const spawned = spawnExecutor(bound.argv, { ...env, ...landlockStepEnv(bound.argv) }, bound.admit)
      tellPolicy(policy)
      const { RemoteExecutor } = await import("./remote.ts")
      return RemoteExecutor.start({
        spawned,
        label: "the local executor",
        local: true,
        capabilitiesRequest: options.mcp,
        onSpawn: () => {
          // Taken while the executor starts: no script can run before it has answered.
          state = protect?.ProtectedState.take(workspace, policy.writable, { existing: policy.backend === "landlock" })
          options.onSpawn?.()
        },
      })
    })
    return protect && state ? protect.keepProtectedPaths(executor, state, options.onWarning) : executor
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(policy)
    } catch (error) {
      const reason = error instanceof ExecutorLostError ? bwrapReason(error.message) : undefined
      if (policy.backend !== "bwrap" || reason === undefined) throw error
      // A path planned for went away before bwrap mounted it (a host socket to cover): bwrap works,
      // it is planned again rather than replaced by another backend.
      if (bwrapRaced(reason) && attempt < BWRAP_STALE_ATTEMPTS) continue
      // bubblewrap is there but cannot create its namespaces (AppArmor, a container's seccomp): Landlock.
      await forgetBwrapStarts()
      return start(await afterBwrapFailed(policy, request, backend, reason))
    }
  }
}

/**
 * Starts a sandboxed executor in a pids cgroup of its own (where one can be made), removed when
 * it closes, with its private temporary directory (Landlock).
 */
async function withProcessBound(policy: SandboxPolicy, argv: string[], start: (bound: Pick<ProcessBound, "argv" | "admit">) => Promise<Executor>): Promise<Executor> {
  if (policy.mode === "off" || process.platform !== "linux") return start({ argv })
  const bound = policy.backend === "bwrap" ? heldInPidsCgroup(argv) : inPidsCgroup(argv)
  const release = async () => {
    await bound.release()
    releasePrivateTmps(argv)
  }
  let executor: Executor
  try {
    executor = await start(bound)
  } catch (error) {
    await release()
    throw error
  }
  const close = executor.close.bind(executor)
  executor.close = async () => {
    await close()
    await release()
  }
  return executor
}

/** The absolute paths a stdio MCP server's command line names: the sandbox must let it read them. */
function mcpPaths(options: ConnectOptions): string[] {
  return Object.values(options.mcp?.mcpServers ?? {}).flatMap((server) => [server.command, ...(server.args ?? [])].filter((arg) => arg.startsWith("/")))
}

/** `--no-search` for the executor's command line when search is off. */
export function noSearch(options: ConnectOptions): string[] {
  return options.search === false ? ["--no-search"] : []
}

/** `--max-scripts N` for the executor's command line, only when given (an older remote clanka lacks it). */
export function maxScriptsFlag(options: ConnectOptions): string[] {
  return options.maxScripts === undefined ? [] : ["--max-scripts", String(options.maxScripts)]
}

