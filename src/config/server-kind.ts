import type { HttpMcpServer, McpServerConfig } from "./schema.ts"

/** A configured MCP server reached over Streamable HTTP (from the agent's side); apart from schema.ts, which loads valibot. */
export function isHttpServer(server: McpServerConfig): server is HttpMcpServer {
  return server.type === "http" || server.type === "streamable-http"
}
