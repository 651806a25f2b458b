/**
 * `${NAME}` and `${NAME:-default}` in an MCP server's strings are taken from the environment, as in
 * other agents' `.mcp.json` (a token in a header, a path in args). Expanded only where a server is
 * started, and only for servers of trusted files: what is loaded or displayed stays as written.
 */
import { basename } from "node:path"
import { UsageError } from "../errors.ts"
import type { McpServerConfig } from "./schema.ts"
import { rememberExpanded } from "./secret-values.ts"

type Env = Record<string, string | undefined>

export interface ExpandedServers {
  servers: Record<string, McpServerConfig>
  /** Servers of a `.mcp.json` left out for a variable that is not set (the file's path, the reason). */
  skipped: { server: string; why: string; path: string }[]
}

/**
 * The servers with their variables expanded; `sources` names each server's file. A variable that is
 * not set and has no default is a mistake in clanka's own files (exit 2); in a `.mcp.json`, written
 * for any agent, it leaves that server out.
 */
export function expandServers(servers: Record<string, McpServerConfig>, sources: Record<string, string>, env: Env = process.env): ExpandedServers {
  const expanded: ExpandedServers = { servers: {}, skipped: [] }
  for (const [name, server] of Object.entries(servers)) {
    const path = sources[`mcpServers.${name}`] ?? "config"
    try {
      expanded.servers[name] = expandVariables(server, [], env)
    } catch (error) {
      if (!(error instanceof UnsetVariable)) throw error
      if (basename(path) !== ".mcp.json") throw new UsageError(`${path}: mcpServers.${name}.${error.message}`)
      expanded.skipped.push({ server: name, why: error.message, path })
    }
  }
  return expanded
}

/** `key: ${NAME} is not set; …`, the key from the server's entry (`env.TOKEN`). */
class UnsetVariable extends Error {}

function expandVariables<T>(value: T, key: string[], env: Env): T {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
      const found = env[name]
      if (found !== undefined && found !== "") {
        rememberExpanded(name, found)
        return found
      }
      if (fallback !== undefined) return fallback
      throw new UnsetVariable(`${key.join(".")}: \${${name}} is not set; set the variable or give a default with \${${name}:-value}`)
    }) as T
  }
  if (Array.isArray(value)) return value.map((item, i) => expandVariables(item, [...key, String(i)], env)) as T
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, expandVariables(item, [...key, k], env)])) as T
  }
  return value
}
