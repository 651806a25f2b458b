/**
 * The agent's side of MCP: Streamable HTTP servers, reached from this process with the headers
 * (tokens) of the config, never from the executor. Their tools are announced to the executor in
 * the capabilities request; a script's call comes back here as the `mcp` agent-side service (an
 * `AgentCall` over the protocol, like webSearch), so it works over --ssh and with the network off.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as v from "valibot"
import type { AgentMcpTool } from "../contract.ts"
import type { HttpMcpServer } from "../config/schema.ts"
import { ToolError } from "../errors.ts"
import { registerAgentService } from "../tools/agent-services.ts"
import { errorMessage } from "../util/error-message.ts"
import { McpConnection } from "./connection.ts"

export interface AgentSideMcp {
  tools: AgentMcpTool[]
  failures: { server: string; error: string }[]
  close(): Promise<void>
}

const McpCallSchema = v.looseObject({ server: v.string(), tool: v.string(), arguments: v.optional(v.record(v.string(), v.unknown())) })

export async function connectHttpServers(servers: Record<string, HttpMcpServer>): Promise<AgentSideMcp> {
  const connections = new Map<string, McpConnection>()
  const failures: { server: string; error: string }[] = []
  await Promise.all(
    Object.entries(servers).map(async ([name, server]) => {
      const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers ?? {} } })
      const connection = new McpConnection(name, transport)
      try {
        await connection.start(server.startupTimeoutSec)
        connections.set(name, connection)
      } catch (error) {
        failures.push({ server: name, error: `${server.url}: ${errorMessage(error)}` })
      }
    }),
  )
  registerAgentService("mcp", async (params, signal) => {
    const call = v.parse(McpCallSchema, params)
    const connection = connections.get(call.server)
    if (!connection) throw new ToolError(`no MCP server "${call.server}" on the agent's side`)
    return connection.call(call.tool, call.arguments ?? {}, signal)
  })
  const order = Object.keys(servers)
  const tools = [...connections.values()]
    .sort((a, b) => order.indexOf(a.server) - order.indexOf(b.server))
    .flatMap((connection) =>
      connection.tools.map((tool) => ({
        server: tool.server,
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
      })),
    )
  return {
    tools,
    failures,
    close: async () => {
      await Promise.all([...connections.values()].map((connection) => connection.close()))
    },
  }
}
