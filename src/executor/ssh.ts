/**
 * `--ssh [USER@]HOST[:DIR]`: clanka's executor on another machine through the system ssh (so
 * ~/.ssh/config, ProxyJump and agents apply). A host without clanka gets this binary copied to
 * its cache first (upload.ts), unless --no-upload.
 */
import type { Executor } from "../contract.ts"
import { UsageError } from "../errors.ts"
import type { ConnectOptions } from "./connect.ts"
import { maxScriptsFlag, noSearch } from "./connect.ts"
import { shellQuote, type SshTarget } from "./ssh-target.ts"
import { sandboxFlags } from "./os-sandbox.ts"
import { pingTiming, RemoteClankaMissingError, RemoteExecutor } from "./remote.ts"
import { binaryFor, ownTarget } from "./self-binary.ts"
import { compiledSelf } from "./self.ts"
import { type CachedBuild, launchCommand, uploadSelf } from "./upload.ts"
import { withoutAgentKeys } from "./executor-env.ts"

/**
 * No tty and no escape character: stdio is the protocol. Keepalives make a link that silently
 * drops end within a minute instead of hanging the agent; a host that takes the connection but
 * never answers is given up after the liveness time (30 s), as a frozen executor is.
 */
export function sshArgs(): string[] {
  const connectSeconds = Math.max(1, Math.ceil(pingTiming().timeoutMs / 1000))
  return ["-T", "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4", "-o", `ConnectTimeout=${connectSeconds}`]
}

export async function connectSsh(target: SshTarget, options: ConnectOptions): Promise<Executor> {
  const remoteBin = options.remoteBin || process.env.CLANKA_REMOTE_BIN || "clanka"
  const directory = target.directory ?? options.directory
  const request = options.sandbox ?? "auto"
  const flags = [...sandboxFlags({ mode: request, backend: options.sandboxBackend, network: options.network ?? false, writable: options.writable ?? [], tmpSize: options.tmpSize, readable: options.readable }), ...noSearch(options), ...maxScriptsFlag(options)]
  const args = ["executor", ...(directory ? ["-C", shellQuote(directory)] : []), ...flags.map(shellQuote)]
  const ssh = ["ssh", ...sshArgs(), "--", target.host]
  const start = (command: string) =>
    RemoteExecutor.start({ argv: [...ssh, command], env: withoutAgentKeys(), label: target.host, ssh: { host: target.host, remoteBin }, capabilitiesRequest: options.mcp })
  const plain = [shellQuote(remoteBin), ...args].join(" ")
  const self = options.upload === false ? undefined : compiledSelf()
  let remote: RemoteExecutor
  if (!self) remote = await start(plain)
  else {
    // The host's clanka, else the copy in its cache: later runs are one ssh call, as without it.
    const own = await binaryFor(self, ownTarget())
    const launch = (build: CachedBuild) => launchCommand(shellQuote(remoteBin), args, build)
    try {
      remote = await start(own ? launch(own) : plain)
    } catch (error) {
      if (!(error instanceof RemoteClankaMissingError)) throw error
      const build = await uploadSelf({ host: target.host, remoteBin, self, ssh, progress: options.progress ?? process.stderr })
      remote = await start(launch(build))
    }
  }
  // An older clanka there may have fallen back to no sandbox: the default never runs scripts unsandboxed.
  if (request === "auto" && remote.announced?.sandbox.mode === "off") {
    await remote.close()
    throw new UsageError(`the executor on ${target.host} cannot run scripts in an OS sandbox; install bubblewrap there (or a newer clanka, which uses Landlock where bubblewrap cannot run), or pass --sandbox off to run them without it`)
  }
  return remote
}
