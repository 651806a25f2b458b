/**
 * The MCP servers an editor gives a session (session/new, session/load) as clanka's server
 * configuration. They are the user's (their editor's settings), so they are trusted like the
 * user's config.json and join the run's servers; a name becomes `mcp.<name>` in scripts, so it is
 * made into one that reads there. A stdio server starts where the config's do: beside a local
 * executor's sandbox, or on the --ssh host.
 */
import type { McpServer } from "@agentclientprotocol/sdk"
import type { McpServerConfig } from "../config/schema.ts"

export class McpServersError extends Error {
  override name = "McpServersError"
}

/** `My Server` → `My_Server`; `2fa` → `_2fa` (config/schema.ts's SERVER_NAME). */
function scriptName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_-]/g, "_")
  return /^[A-Za-z_]/.test(safe) ? safe : `_${safe}`
}

export function mcpServersOf(servers: readonly McpServer[]): Record<string, McpServerConfig> {
  const result: Record<string, McpServerConfig> = {}
  for (const server of servers) {
    let name = scriptName(server.name)
    for (let n = 2; name in result; n++) name = `${scriptName(server.name)}_${n}`
    if ("type" in server && server.type === "sse") throw new McpServersError(`MCP server "${server.name}": SSE servers are not supported; give its Streamable HTTP endpoint`)
    if ("url" in server) {
      if (!/^https?:\/\//i.test(server.url)) throw new McpServersError(`MCP server "${server.name}": the url must be an http(s) URL`)
      result[name] = { type: "http", url: server.url, headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])) }
    } else {
      if (!server.command) throw new McpServersError(`MCP server "${server.name}": the command is empty`)
      result[name] = { command: server.command, args: [...server.args], env: Object.fromEntries(server.env.map((variable) => [variable.name, variable.value])) }
    }
  }
  return result
}
