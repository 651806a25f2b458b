import type { ArgsDef } from "citty"
import type { Executor, StdioMcpServer } from "../contract.ts"
import { type LoadedConfig, loadConfig } from "../config/load.ts"
import { type Config, type HttpMcpServer, isHttpServer } from "../config/schema.ts"
import { checkEnvName } from "../executor/executor-env.ts"
import { UsageError } from "../errors.ts"
import { REPEAT_SEPARATOR, repeated } from "./argv.ts"
import { sandboxArgs, sandboxRequest } from "./sandbox-flags.ts"

/** Flags that choose where scripts run; shared by run, exec and tool. */
export const executorArgs = {
  directory: { type: "string", alias: "C", description: "working directory (default: cwd)", valueHint: "DIR" },
  executor: { type: "string", description: "spawn CMD and speak the executor protocol on its stdio", valueHint: "CMD" },
  ssh: { type: "string", description: "run on [USER@]HOST[:DIR] through the system ssh", valueHint: "HOST" },
  "remote-bin": { type: "string", description: "path of clanka on the remote host (default $CLANKA_REMOTE_BIN or clanka)", valueHint: "PATH" },
  ...(sandboxArgs as unknown as ArgsDef),
  env: { type: "string", description: "pass this environment variable to the executor (repeatable)", valueHint: "NAME", repeatable: true },
  search: { type: "boolean", default: true, description: "offer the search(query) tool", negativeDescription: "no search(query) tool and no index" },
  "embed-model": { type: "string", description: "search also ranks by embeddings from openai/MODEL or openai-compatible/MODEL (keys stay here)", valueHint: "PROVIDER/MODEL" },
} as const

export interface ExecutorFlags {
  directory?: string
  executor?: string
  ssh?: string
  "remote-bin"?: string
  sandbox?: string
  network?: boolean
  writable?: string
  env?: string
  search?: boolean
  "embed-model"?: string
}

/**
 * The configuration of the project the command works on: the local directory (-C, default cwd);
 * with --ssh or --executor the project is elsewhere, so the files are looked up from cwd.
 */
export function projectConfig(args: ExecutorFlags): LoadedConfig {
  const local = args.ssh === undefined && args.executor === undefined
  return loadConfig(local && args.directory !== undefined ? args.directory : ".")
}

/** The executor the flags ask for; a local one is a child process in the OS sandbox. Flags beat the config files. */
export async function openExecutor(args: ExecutorFlags, options: { searchLikely?: boolean } = {}): Promise<Executor> {
  const { config } = projectConfig(args)
  if (args.executor === undefined) {
    args = {
      ...args,
      sandbox: args.sandbox ?? config.sandbox,
      network: args.network ?? config.network,
      ...(args.writable === undefined && config.writable?.length ? { writable: config.writable.join(REPEAT_SEPARATOR) } : {}),
      ...(args.env === undefined && args.ssh === undefined && config.env?.length ? { env: config.env.join(REPEAT_SEPARATOR) } : {}),
      "remote-bin": args["remote-bin"] ?? config.remoteBin,
    }
  }
  const env = repeated(args.env)
  for (const name of env) {
    const problem = checkEnvName(name)
    if (problem) throw new UsageError(problem)
  }
  if (args["embed-model"] !== undefined && args.search === false) throw new UsageError("--embed-model is for search, which --no-search turns off; pass only one of them")
  if (args["embed-model"] !== undefined) {
    // Checked before the executor starts; the executor asks this process for vectors.
    const { configureEmbeddings, parseEmbedModel } = await import("../tools/semantic/embed.ts")
    configureEmbeddings(parseEmbedModel(args["embed-model"]))
  }
  const { stdio, http } = splitServers(config.mcpServers)
  // HTTP servers (the agent's side) connect while the executor starts its stdio servers.
  const agentSide = http ? import("../mcp/agent-side.ts").then(({ connectHttpServers }) => connectHttpServers(http)) : undefined
  const { connectExecutor } = await import("../executor/connect.ts")
  const [started, connected] = await Promise.allSettled([
    connectExecutor({
      directory: args.directory,
      executor: args.executor,
      ssh: args.ssh,
      remoteBin: args["remote-bin"],
      local: "child",
      ...(args.sandbox === undefined ? {} : { sandbox: sandboxRequest(args.sandbox, "auto") }),
      network: args.network ?? false,
      writable: repeated(args.writable),
      env,
      search: args.search !== false,
      searchLikely: options.searchLikely ?? false,
      onWarning: (line) => process.stderr.write(`clanka: ${line}\n`),
      ...(stdio ? { mcp: { mcpServers: stdio } } : {}),
    }),
    agentSide,
  ])
  if (started.status === "rejected" || connected.status === "rejected") {
    if (started.status === "fulfilled") await started.value.close()
    if (connected.status === "fulfilled") await connected.value?.close()
    throw started.status === "rejected" ? started.reason : (connected as PromiseRejectedResult).reason
  }
  const executor = started.value
  const agent = connected.value
  if (agent) {
    for (const { server, error } of agent.failures) process.stderr.write(`clanka: MCP server "${server}" failed: ${error}; its tools are missing\n`)
    // The HTTP connections end with the executor, so nothing keeps the process alive.
    const close = executor.close.bind(executor)
    executor.close = async () => {
      await Promise.all([close(), agent.close()])
    }
    try {
      await executor.capabilities({ ...(stdio ? { mcpServers: stdio } : {}), agentMcpTools: agent.tools, agentMcpFailures: agent.failures })
    } catch (error) {
      await executor.close()
      throw error
    }
  }
  return executor
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
