import { realpathSync } from "node:fs"
import { resolve } from "node:path"
import type { Capabilities, Executor, SandboxPolicy, StdioMcpServer } from "../contract.ts"
import { expandServers } from "../config/expand.ts"
import { type LoadedConfig, loadConfig } from "../config/load.ts"
import type { Config, HttpMcpServer, McpServerConfig } from "../config/schema.ts"
import { isHttpServer } from "../config/server-kind.ts"
import { trustProjectFromEnv } from "../config/trust-key.ts"
import type { ConnectOptions } from "../executor/connect.ts"
import { parseSshTarget } from "../executor/ssh-target.ts"
import { localPromptFacts } from "../executor/prompt-facts.ts"
import { StartingExecutor } from "../executor/starting.ts"
import { checkEnvName, executorEnv, WITHHELD_KEYS } from "../executor/executor-env.ts"
import type { AgentSideMcp } from "../mcp/agent-side.ts"
import { UsageError } from "../errors.ts"
import { visible } from "../output/visible.ts"
import { repeated } from "./argv.ts"
import { maxScripts } from "./max-scripts.ts"
import { checkWritableRoot, sandboxBackend, sandboxRequest, tmpSize } from "./sandbox-flags.ts"
import { ignoredNotice, skippedLine, skippedServerLines } from "./config-notices.ts"

export interface ExecutorFlags {
  directory?: string
  executor?: string
  ssh?: string
  "remote-bin"?: string
  upload?: boolean
  sandbox?: string
  "sandbox-backend"?: string
  network?: boolean
  writable?: string
  readable?: string
  "tmp-size"?: string
  "max-scripts"?: string
  env?: string
  search?: boolean
  "embed-model"?: string
  "trust-project"?: boolean
}

/** The loaded configuration, and its MCP servers as they start: with `${VAR}` expanded. */
export interface ProjectConfig extends LoadedConfig {
  servers: Record<string, McpServerConfig>
  /** Servers that would count but cannot start (skipped in a .mcp.json): scripts calling them are told why. */
  unavailable: { server: string; error: string }[]
}

let noticeGiven = false

/**
 * The configuration of the project the command works on: the local directory (-C, default cwd);
 * with --ssh or --executor the project is elsewhere, so the files are looked up from cwd. What an
 * untrusted project asked for and did not get, and each server skipped, is said once per process.
 */
export function projectConfig(args: ExecutorFlags): ProjectConfig {
  const local = args.ssh === undefined && args.executor === undefined
  const loaded = loadConfig(local && args.directory !== undefined ? args.directory : ".", { trustProject: args["trust-project"] === true || trustProjectFromEnv() })
  // Expanded here, before anything starts: an unset variable in clanka's own files is a usage error up front.
  const { servers, skipped } = expandServers(loaded.config.mcpServers ?? {}, loaded.sources)
  if (!noticeGiven) {
    noticeGiven = true
    const lines = [...skippedServerLines(loaded), ...skipped.map((each) => skippedLine(each.path, each))]
    const notice = ignoredNotice(loaded)
    if (notice) lines.push(notice)
    for (const line of lines) process.stderr.write(`clanka: ${line}\n`)
  }
  // Only the servers of the files that count: an untrusted project's are ignored altogether.
  const counted = loaded.files.filter((file) => file.trust !== "untrusted").flatMap((file) => file.skipped)
  const unavailable = [...counted, ...skipped].filter((each) => !(each.server in servers)).map(({ server, why }) => ({ server, error: why }))
  return { ...loaded, servers, unavailable }
}

/** The executor the flags ask for; a local one is a child process in the OS sandbox. */
export async function openExecutor(args: ExecutorFlags, options: OpenOptions = {}): Promise<Executor> {
  const hosts = sshHosts(args)
  if (hosts.length > 1) throw new UsageError("several --ssh hosts work with clanka run and clanka exec; give this command one")
  return openOne(args, hosts[0]?.target, options)
}

/** One host of `--ssh [NAME=]TARGET` given several times. */
export interface SshHost {
  name: string
  /** `[USER@]HOST[:DIR]` */
  target: string
}

/** The --ssh hosts, named (`web=deploy@web1:/srv/app`) or by their host (`web1`); names are unique. */
export function sshHosts(args: Pick<ExecutorFlags, "ssh" | "executor" | "env">): SshHost[] {
  const hosts = repeated(args.ssh).map((spec) => {
    const named = spec.match(/^([A-Za-z0-9_][\w.-]*)=(.*)$/)
    const target = named ? named[2]! : spec
    return { name: named ? named[1]! : parseSshTarget(target).host.replace(/^.*@/, ""), target }
  })
  // Said once here rather than once per host when they connect.
  if (hosts.length > 1 && args.executor !== undefined) throw new UsageError("--executor and --ssh both choose the executor; pass only one of them")
  if (hosts.length > 1 && args.env !== undefined) {
    throw new UsageError("--env applies to a local executor; on a remote host the executor has the host's environment")
  }
  for (const [index, host] of hosts.entries()) {
    if (hosts.findIndex((other) => other.name === host.name) !== index) {
      throw new UsageError(`two --ssh hosts are named "${host.name}"; name them apart: --ssh NAME=${host.target}`)
    }
  }
  return hosts
}

/** Every --ssh host connected at once; when one cannot be, the others are closed again. */
export async function openHosts(args: ExecutorFlags, hosts: SshHost[], options: OpenOptions = {}): Promise<(SshHost & { executor: Executor })[]> {
  // Several uploads at once: one line each, not percentages that overwrite each other.
  const progress = { write: (text: string) => process.stderr.write(text), isTTY: false }
  const opened = await Promise.allSettled(hosts.map((host) => openOne(args, host.target || undefined, { ...options, progress })))
  const failed = opened.find((result) => result.status === "rejected")
  if (failed) {
    await Promise.all(opened.map((result) => (result.status === "fulfilled" ? result.value.close() : undefined)))
    throw failed.reason
  }
  return hosts.map((host, index) => ({ ...host, executor: (opened[index] as PromiseFulfilledResult<Executor>).value }))
}

/** A script that may call search(): its sandboxed executor gets a persistent index directory. */
export function callsSearch(script: string): boolean {
  return /\bsearch\s*\(/.test(script)
}

export interface OpenOptions {
  /**
   * Return a local executor while it is still starting (a StartingExecutor), when nothing has to
   * be added to its capabilities (no MCP servers).
   */
  defer?: boolean
  /** A search is likely: a sandboxed local executor gets a persistent index directory. */
  searchLikely?: boolean
  /** MCP servers the user gave some other way (an editor's ACP session): trusted, beside the config's. */
  mcpServers?: Record<string, McpServerConfig>
  progress?: ConnectOptions["progress"]
  /** Told as soon as the executor's process exists (a local child, an --executor command). */
  onSpawn?(): void
}

/** One executor; flags beat the config files. */
async function openOne(args: ExecutorFlags, ssh: string | undefined, options: OpenOptions): Promise<Executor> {
  const project = projectConfig(args)
  const { config, sources } = project
  const servers = { ...project.servers, ...options.mcpServers }
  // A server the editor gives is there, whatever the files said of one of that name.
  const unavailable = project.unavailable.filter((each) => !(each.server in servers))
  // The files' sandbox, network, writable and env apply to executors this process starts: not to
  // an --executor command (it picks its own), and env only to a local one.
  const files = args.executor === undefined ? config : {}
  const writable = args.writable !== undefined ? repeated(args.writable) : (files.writable ?? [])
  const named = args.env !== undefined ? repeated(args.env) : ssh === undefined ? (files.env ?? []) : []
  const sandbox = args.sandbox ?? files.sandbox
  const remoteBin = args["remote-bin"] ?? files.remoteBin
  for (const name of named) {
    const problem = checkEnvName(name)
    if (problem) throw new UsageError(problem)
  }
  const env = withoutWithheld(named, args.env !== undefined ? "--env" : `${sources.env}: env:`)
  // A remote host's directories are checked there (by its clanka executor); --executor takes none.
  if (ssh === undefined && args.executor === undefined) for (const dir of writable) checkWritableRoot(dir, args.writable !== undefined ? "--writable" : `${sources.writable}: writable:`)
  if (args["embed-model"] !== undefined && args.search === false) throw new UsageError("--embed-model is for search, which --no-search turns off; pass only one of them")
  if (args["embed-model"] !== undefined) {
    // Checked before the executor starts; the executor asks this process for vectors.
    const { configureEmbeddings, parseEmbedModel } = await import("../tools/semantic/embed.ts")
    configureEmbeddings(parseEmbedModel(args["embed-model"]))
  }
  const { stdio, http } = splitServers(servers)
  // A local executor's stdio servers run beside its sandbox, started here (each in a sandbox of
  // its own): their secrets never enter the executor. A remote one's run on its host, started by
  // the `clanka executor` there, also beside its sandbox.
  const local = ssh === undefined && args.executor === undefined
  const sent = local ? undefined : stdio
  // HTTP servers (the agent's side) connect while the executor starts.
  const agentSide = http ? import("../mcp/agent-side.ts").then(({ connectHttpServers }) => connectHttpServers(http)) : undefined
  // Loaded (the MCP SDK with it) while the executor starts; the servers start once it has.
  const beside = local && stdio ? import("../mcp/beside.ts") : undefined
  const { connectExecutor } = await import("../executor/connect.ts")
  const connecting = (more: Partial<ConnectOptions> = {}) =>
    connectExecutor({
      ...more,
      directory: args.directory,
      executor: args.executor,
      ssh,
      ...(options.progress ? { progress: options.progress } : {}),
      remoteBin,
      upload: args.upload !== false,
      local: "child",
      ...(sandbox === undefined ? {} : { sandbox: sandboxRequest(sandbox, "auto") }),
      // CLANKA_SANDBOX_BACKEND is for the executors this process starts, not an --executor command.
      ...(args.executor === undefined || args["sandbox-backend"] !== undefined ? { sandboxBackend: sandboxBackend(args["sandbox-backend"]) } : {}),
      network: args.network ?? files.network ?? false,
      writable,
      readable: repeated(args.readable),
      ...(args["tmp-size"] === undefined ? {} : { tmpSize: tmpSize(args["tmp-size"]) }),
      ...(args["max-scripts"] === undefined ? {} : { maxScripts: maxScripts(args["max-scripts"]) }),
      env,
      search: args.search !== false,
      searchLikely: options.searchLikely ?? false,
      // A warning names the project's files (a skill folder's name): one line, nothing a terminal obeys.
      onWarning: (line) => process.stderr.write(`clanka: ${visible(line).replaceAll("\n", "^J")}\n`),
      ...(sent ? { mcp: { mcpServers: sent } } : {}),
      ...(options.onSpawn ? { onSpawn: options.onSpawn } : {}),
    })
  if (options.defer && local && !stdio && !http) {
    // Nothing to add to its capabilities: the agent can tell what it will announce (from the same
    // files and facts, in the sandbox connect() chose), and need not wait for it before its
    // first model request.
    let onPolicy!: (policy: SandboxPolicy | undefined) => void
    const policy = new Promise<SandboxPolicy | undefined>((resolve) => (onPolicy = resolve))
    let onSpawn!: () => void
    const spawned = new Promise<void>((resolve) => (onSpawn = resolve))
    const ready = connecting({
      onPolicy,
      onSpawn: () => {
        onSpawn()
        options.onSpawn?.()
      },
    })
    const settled = () => {
      onPolicy(undefined)
      onSpawn()
    }
    ready.then(settled, settled)
    const search = args.search !== false
    const workspace = () => realpathSync(resolve(args.directory ?? "."))
    return new StartingExecutor(
      ready,
      async () => {
        const chosen = await policy
        return chosen ? localPromptFacts(workspace(), search, chosen) : undefined
      },
      spawned,
    )
  }
  const [started, connected] = await Promise.allSettled([connecting(), agentSide])
  if (started.status === "rejected" || connected.status === "rejected") {
    if (started.status === "fulfilled") await started.value.close()
    if (connected.status === "fulfilled") await connected.value?.close()
    throw started.status === "rejected" ? started.reason : (connected as PromiseRejectedResult).reason
  }
  const executor = started.value
  const sides: AgentSideMcp[] = []
  try {
    // Started once the executor is: they get the sandbox it really runs in (after any fallback).
    if (beside && stdio) sides.push(await besideLocal(await beside, executor, stdio, writable, env))
  } catch (error) {
    await Promise.all([executor.close(), connected.value?.close()])
    throw error
  }
  if (connected.value) sides.push(connected.value)
  if (sides.length > 0 || unavailable.length > 0) {
    const failures = sides.flatMap((side) => side.failures)
    for (const { server, error } of failures) process.stderr.write(`clanka: MCP server "${server}" failed: ${error}; its tools are missing\n`)
    // The skipped servers were named when the files were read; scripts that call them learn why.
    failures.push(...unavailable)
    // The servers end with the executor, so nothing keeps the process alive.
    const close = executor.close.bind(executor)
    executor.close = async () => {
      await Promise.all([close(), ...sides.map((side) => side.close())])
    }
    try {
      await executor.capabilities({ ...(sent ? { mcpServers: sent } : {}), agentMcpTools: sides.flatMap((side) => side.tools), agentMcpFailures: failures })
    } catch (error) {
      await executor.close()
      throw error
    }
  }
  return executor
}

let withheldNoticeGiven = false

/** The names less the agent's own keys, which scripts never get: said in one line, once. */
function withoutWithheld(names: string[], flag: string): string[] {
  const withheld = names.filter((name) => WITHHELD_KEYS.includes(name))
  if (withheld.length > 0 && !withheldNoticeGiven) {
    withheldNoticeGiven = true
    process.stderr.write(
      `clanka: ${flag} ${withheld.join(", ")} ${withheld.length > 1 ? "are" : "is"} not passed: clanka keeps its model and search keys (${WITHHELD_KEYS.join(", ")}) from scripts and the commands they run\n`,
    )
  }
  return names.filter((name) => !WITHHELD_KEYS.includes(name))
}

/** Starts a local executor's stdio servers beside its sandbox, in the sandbox it announced. */
async function besideLocal(
  { startServersBeside }: typeof import("../mcp/beside.ts"),
  executor: Executor,
  servers: Record<string, StdioMcpServer>,
  writable: string[],
  env: string[],
): Promise<AgentSideMcp> {
  const announced = (executor as { announced?: Capabilities }).announced
  if (!announced) throw new Error("the local executor did not announce its sandbox")
  const policy: SandboxPolicy = { ...announced.sandbox, writable: writable.map((dir) => resolve(dir)) }
  return startServersBeside(servers, { workspace: announced.directory, policy, env: executorEnv(env) })
}

/** The configured MCP servers by side: stdio ones for the executor, HTTP ones for this process. */
function splitServers(servers: Config["mcpServers"]): { stdio?: Record<string, StdioMcpServer>; http?: Record<string, HttpMcpServer> } {
  const stdio: Record<string, StdioMcpServer> = {}
  const http: Record<string, HttpMcpServer> = {}
  for (const [name, server] of Object.entries(servers ?? {})) {
    if (isHttpServer(server)) http[name] = server
    else {
      const { type: _, ...rest } = server
      stdio[name] = rest as StdioMcpServer
    }
  }
  return {
    ...(Object.keys(stdio).length > 0 ? { stdio } : {}),
    ...(Object.keys(http).length > 0 ? { http } : {}),
  }
}
