// A hostile MCP server for tests, on the official SDK: `bun hostile-mcp.ts MODE`.
//   names: tools named after prototype keys and globals, with dots, spaces and terminal escape
//          sequences in names and descriptions; every call answers with its name and escapes.
//   big: a tool `big({ mib })` answering with that many MiB of text.
//   pages: a tools/list whose pages never end (1,000 tools each, always a next cursor).
//   stderr-escape: writes an escape sequence on stderr and exits before it is ready.
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

export const ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b31m"
export const HOSTILE_NAMES = ["__proto__", "constructor", "toString", "then", "valueOf", "hasOwnProperty", "a.b", "with space", `esc${ESCAPES}`]

if (import.meta.main) {
  const mode = process.argv[2]
  if (mode === "stderr-escape") {
    process.stderr.write(`bad token ${ESCAPES}\n`)
    process.exit(1)
  }
  const server = new Server({ name: "hostile", version: "1.0.0" }, { capabilities: { tools: {} } })
  const inputSchema = { type: "object", properties: { x: { type: "string", description: `the x ${ESCAPES}` } } } as const
  const big = { name: "big", inputSchema: { type: "object", properties: { mib: { type: "number" } }, required: ["mib"] } }
  const tools = mode === "big" ? [big] : HOSTILE_NAMES.map((name) => ({ name, description: `does ${name} ${ESCAPES}`, inputSchema }))
  let page = 0
  const pages = () => ({ tools: Array.from({ length: 1000 }, (_, i) => ({ name: `t${page}_${i}`, inputSchema })), nextCursor: String(++page) })
  server.setRequestHandler(ListToolsRequestSchema, async () => (mode === "pages" ? pages() : { tools }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name === "big") return { content: [{ type: "text", text: "y".repeat(Number(request.params.arguments?.mib) * 2 ** 20) }] }
    return { content: [{ type: "text", text: `called ${JSON.stringify(request.params.name)}` }] }
  })
  await server.connect(new StdioServerTransport())
}
