/**
 * The executor's side of MCP: it turns the agent-side tools it is told of (HTTP servers, and stdio
 * servers started beside its sandbox: beside.ts) into sandbox tools, and starts the stdio servers
 * it is asked for itself (its children: only an unsandboxed executor is asked, since inside the
 * OS sandbox the scripts could read a server's environment), all at once with a time limit each.
 * Loaded only when a capabilities request names MCP servers.
 */
import type { CapabilitiesRequest, StdioMcpServer } from "../contract.ts"
import { errorMessage } from "../util/error-message.ts"
import type { Tool } from "../tools/tool.ts"
import { McpConnection } from "./connection.ts"
import { assignJsNames, type McpToolInfo, renderMcpDeclarations } from "./declarations.ts"
import { stdioConnection } from "./stdio.ts"
import { mcpTools } from "./tools.ts"

/**
 * The MCP tools of one executor. The stdio servers of the first request that names some are
 * started; agent-side tools (servers that run where the agent or the executor's launcher is) are
 * added per server, the first time a request names the server: they may come in several requests
 * (stdio servers started beside the sandbox first, HTTP servers once they answered).
 */
export class ExecutorMcp {
  private readonly connections = new Map<string, McpConnection>()
  private stdioInfos: McpToolInfo[] = []
  private agentInfos: McpToolInfo[] = []
  private stdioFailures: { server: string; error: string }[] = []
  private agentFailures: { server: string; error: string }[] = []
  private stdioDone = false
  /** The agent-side servers already added, with their tools or their failure. */
  private readonly agentServers = new Set<string>()

  /** `tagEnv`: added to each server's environment, so the executor's end reaches the servers and all they start. */
  constructor(
    private readonly directory: string,
    private readonly tagEnv: Record<string, string> = {},
  ) {}

  /** Adds what the request names that was not added before; true when the tools changed. */
  async add(request: CapabilitiesRequest): Promise<boolean> {
    let changed = false
    const servers = Object.entries(request.mcpServers ?? {})
    if (!this.stdioDone && servers.length > 0) {
      this.stdioDone = changed = true
      await this.startStdio(servers)
    }
    const known = (server: string) => this.agentServers.has(server) || this.connections.has(server)
    const failures = (request.agentMcpFailures ?? []).filter((failure) => !known(failure.server))
    const byServer = new Map<string, McpToolInfo[]>()
    for (const tool of request.agentMcpTools ?? []) {
      if (known(tool.server)) continue
      byServer.set(tool.server, [...(byServer.get(tool.server) ?? []), { ...tool, jsName: tool.name }])
    }
    for (const server of [...failures.map((failure) => failure.server), ...byServer.keys()]) this.agentServers.add(server)
    if (failures.length > 0 || byServer.size > 0) {
      changed = true
      this.agentFailures.push(...failures)
      this.agentInfos.push(
        ...[...byServer.values()].flatMap((list) => {
          const jsNames = assignJsNames(list.map((tool) => tool.name))
          return list.map((tool, i) => ({ ...tool, jsName: jsNames[i]! }))
        }),
      )
    }
    return changed
  }

  get failures(): { server: string; error: string }[] {
    return [...this.stdioFailures, ...this.agentFailures]
  }

  /** Sandbox tools: a stdio server's are called here; an agent-side server's through the agent. */
  get tools(): Tool[] {
    return mcpTools([...this.stdioInfos, ...this.agentInfos], async (info, args, ctx) => {
      const connection = this.connections.get(info.server)
      if (connection) return connection.call(info.name, args, ctx.signal, ctx.images)
      return ctx.agentCall("mcp", { server: info.server, tool: info.name, arguments: args })
    }, this.failures)
  }

  /** `declare const mcp …` (and a comment per failed server), for the prompt. */
  get declarations(): string {
    return renderMcpDeclarations([...this.stdioInfos, ...this.agentInfos], this.failures)
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.close()))
  }

  /** Starts the servers all at once, each within its time limit. */
  private async startStdio(servers: [string, StdioMcpServer][]): Promise<void> {
    const started = new Map<string, McpConnection>()
    await Promise.all(
      servers.map(async ([name, server]) => {
        // The executor's environment (already an allow-list under clanka run) and the server's own.
        const connection = stdioConnection(name, server, { directory: this.directory, env: process.env as Record<string, string>, tag: this.tagEnv })
        try {
          await connection.start(server.startupTimeoutSec)
          started.set(name, connection)
        } catch (error) {
          this.stdioFailures.push({ server: name, error: errorMessage(error) })
        }
      }),
    )
    // In the order of the configuration, whichever answered first.
    for (const [name] of servers) {
      const connection = started.get(name)
      if (connection) this.connections.set(name, connection)
    }
    this.stdioFailures.sort((a, b) => servers.findIndex(([name]) => name === a.server) - servers.findIndex(([name]) => name === b.server))
    this.stdioInfos = [...this.connections.values()].flatMap((connection) => connection.tools)
  }
}
