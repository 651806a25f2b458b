/**
 * The executor's side of MCP: it starts the stdio servers it is asked for (children of the
 * executor, so inside its OS sandbox and on its host), all at once with a time limit each, and
 * turns their tools — and the agent-side (HTTP) tools the agent announces — into sandbox tools.
 * Loaded only when a capabilities request names MCP servers.
 */
import { resolve } from "node:path"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CapabilitiesRequest, StdioMcpServer } from "../contract.ts"
import { errorMessage } from "../util/error-message.ts"
import type { Tool } from "../tools/tool.ts"
import { McpConnection } from "./connection.ts"
import { assignJsNames, type McpToolInfo, renderMcpDeclarations } from "./declarations.ts"
import { mcpTools } from "./tools.ts"

export interface McpSetup {
  tools: Tool[]
  /** `declare const mcp …` (and a comment per failed server), for the prompt. */
  declarations: string
  failures: { server: string; error: string }[]
  close(): Promise<void>
}

/** `tagEnv`: added to each server's environment, so the executor's end reaches the servers and all they start. */
export async function setUpMcp(request: CapabilitiesRequest, directory: string, tagEnv: Record<string, string> = {}): Promise<McpSetup> {
  const connections: McpConnection[] = []
  const failures: { server: string; error: string }[] = [...(request.agentMcpFailures ?? [])]
  await Promise.all(
    Object.entries(request.mcpServers ?? {}).map(async ([name, server]) => {
      const connection = stdioConnection(name, server, directory, tagEnv)
      try {
        await connection.start(server.startupTimeoutSec)
        connections.push(connection)
      } catch (error) {
        failures.push({ server: name, error: errorMessage(error) })
      }
    }),
  )
  const order = Object.keys(request.mcpServers ?? {})
  connections.sort((a, b) => order.indexOf(a.server) - order.indexOf(b.server))
  const byServer = new Map(connections.map((connection) => [connection.server, connection]))
  const infos: McpToolInfo[] = connections.flatMap((connection) => connection.tools)
  // Agent-side tools: the calls go back to the agent, which holds the connection and its tokens.
  const agentSide = new Map<string, McpToolInfo[]>()
  for (const tool of request.agentMcpTools ?? []) {
    if (byServer.has(tool.server)) continue
    agentSide.set(tool.server, [...(agentSide.get(tool.server) ?? []), { ...tool, jsName: tool.name }])
  }
  for (const list of agentSide.values()) {
    const jsNames = assignJsNames(list.map((tool) => tool.name))
    list.forEach((tool, i) => infos.push({ ...tool, jsName: jsNames[i]! }))
  }
  const tools = mcpTools(infos, async (info, args, ctx) => {
    const connection = byServer.get(info.server)
    if (connection) return connection.call(info.name, args, ctx.signal)
    return ctx.agentCall("mcp", { server: info.server, tool: info.name, arguments: args })
  })
  return {
    tools,
    declarations: renderMcpDeclarations(infos, failures),
    failures,
    close: async () => {
      await Promise.all(connections.map((connection) => connection.close()))
    },
  }
}

const STDERR_TAIL_LINES = 5

function stdioConnection(name: string, server: StdioMcpServer, directory: string, tagEnv: Record<string, string>): McpConnection {
  // The server gets the executor's environment (already an allow-list under clanka run) and its
  // own `env`; it works in the executor's directory unless told otherwise.
  const env = { ...(process.env as Record<string, string>), ...server.env, ...tagEnv }
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args ?? [],
    env,
    cwd: resolve(directory, server.cwd ?? "."),
    stderr: "pipe",
  })
  // "pipe": the SDK hands out the stream before the start, so no early line is lost.
  const stderr = transport.stderr!
  const lines: string[] = []
  let partial = ""
  stderr.on("data", (chunk: Buffer | string) => {
    const text = chunk.toString()
    const parts = (partial + text).split("\n")
    partial = parts.pop()!.slice(-2000)
    for (const line of parts) if (line.trim()) lines.push(line.trim().slice(0, 300))
    lines.splice(0, Math.max(0, lines.length - STDERR_TAIL_LINES))
  })
  return new McpConnection(name, transport, () => (partial.trim() || lines.at(-1)) ?? undefined)
}
