/**
 * MCP servers on the agent's side of the protocol, whose tools the executor calls through the
 * agent (the `mcp` agent-side service: an `AgentCall` over the protocol, like webSearch), so their
 * secrets never enter the executor and it works over --ssh and with the network off:
 * - Streamable HTTP servers, reached from this process with the headers (tokens) of the config;
 * - stdio servers started beside a sandboxed executor (beside.ts), each in a sandbox of its own.
 * Their tools are announced to the executor in the capabilities request (`agentMcpTools`).
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as v from "valibot"
import { type AgentMcpTool, type ExecuteOptions, McpCallParamsSchema } from "../contract.ts"
import type { HttpMcpServer } from "../config/schema.ts"
import { ToolError } from "../errors.ts"
import { registerAgentService } from "../tools/agent-services.ts"
import { errorMessage } from "../util/error-message.ts"
import { McpConnection } from "./connection.ts"
import { redactExpanded } from "../config/secret-values.ts"

export interface AgentSideMcp {
  tools: AgentMcpTool[]
  failures: { server: string; error: string }[]
  /** Whether `server` is one of these (connected). */
  has(server: string): boolean
  call(server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal, images?: ExecuteOptions["images"]): Promise<unknown>
  close(): Promise<void>
}

/** Every connected agent-side server of this process, for the `mcp` service. */
const live = new Map<string, McpConnection>()
let registered = false

export async function connectHttpServers(servers: Record<string, HttpMcpServer>): Promise<AgentSideMcp> {
  return connectAll(
    Object.entries(servers).map(([name, server]) => ({
      name,
      connection: () => new McpConnection(name, new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers ?? {} } })),
      startupTimeoutSec: server.startupTimeoutSec,
      explain: (error: string) => `${server.url}: ${error}`,
    })),
  )
}

export interface ServerStart {
  name: string
  /** The connection, not yet started; or the reason it cannot be had. */
  connection: () => McpConnection | { error: string }
  startupTimeoutSec?: number
  explain?: (error: string) => string
}

/**
 * Starts the servers all at once, each within its time limit; tools and failures in the order
 * given. `onClose` runs when they are closed (to kill what the servers left behind).
 */
export async function connectAll(servers: ServerStart[], onClose?: () => void): Promise<AgentSideMcp> {
  const connections = new Map<string, McpConnection>()
  const failures: { server: string; error: string }[] = []
  await Promise.all(
    servers.map(async (server) => {
      const connection = server.connection()
      if (!(connection instanceof McpConnection)) return void failures.push({ server: server.name, error: connection.error })
      try {
        await connection.start(server.startupTimeoutSec)
        connections.set(server.name, connection)
      } catch (error) {
        failures.push({ server: server.name, error: redactExpanded((server.explain ?? ((text: string) => text))(errorMessage(error))) })
      }
    }),
  )
  const order = servers.map((server) => server.name)
  const byOrder = (a: string, b: string) => order.indexOf(a) - order.indexOf(b)
  failures.sort((a, b) => byOrder(a.server, b.server))
  const connected = [...connections.values()].sort((a, b) => byOrder(a.server, b.server))
  for (const connection of connected) live.set(connection.server, connection)
  if (!registered) {
    registered = true
    registerAgentService("mcp", async (params, signal, images) => {
      const call = v.parse(McpCallParamsSchema, params)
      const connection = live.get(call.server)
      if (!connection) throw new ToolError(`no MCP server "${call.server}" on the agent's side`)
      return connection.call(call.tool, call.arguments ?? {}, signal, images)
    })
  }
  return {
    tools: connected.flatMap((connection) =>
      connection.tools.map((tool) => ({
        server: tool.server,
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
      })),
    ),
    failures,
    has: (server) => connections.has(server),
    call: async (server, tool, args, signal, images) => {
      const connection = connections.get(server)
      if (!connection) throw new ToolError(`no MCP server "${server}" here`)
      return connection.call(tool, args, signal, images)
    },
    close: async () => {
      for (const connection of connected) if (live.get(connection.server) === connection) live.delete(connection.server)
      const closing = Promise.all(connected.map((connection) => connection.close()))
      // What is killed need not be waited for (a client gives its server 2 s to leave).
      if (onClose) onClose()
      await closing
    },
  }
}
