import { join } from "node:path"
import { ROOT } from "./cli.ts"

/** The real MCP test server (@modelcontextprotocol/server-everything), a dev dependency. */
export const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")

/** A stdio server entry that starts it with node. */
export const everythingStdio = { command: "node", args: [EVERYTHING, "stdio"] }
