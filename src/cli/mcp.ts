import { defineCommand } from "citty"
export default defineCommand({ meta: { name: "mcp", description: "Serve execute as an MCP tool over stdio" }, args: {}, async run() {} })
