/**
 * `${NAME}` and `${NAME:-default}` in an MCP server's strings are taken from the environment, as in
 * other agents' `.mcp.json` (a token in a header, a path in args). Expanded only where a server is
 * started, and only for servers of trusted files: what is loaded or displayed stays as written.
 */
import { UsageError } from "../errors.ts"
import type { McpServerConfig } from "./schema.ts"

type Env = Record<string, string | undefined>

/** The servers with their variables expanded; `sources` names each server's file for errors. */
export function expandServers(servers: Record<string, McpServerConfig>, sources: Record<string, string>, env: Env = process.env): Record<string, McpServerConfig> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, server]) => [name, expandVariables(server, `mcpServers.${name}`, sources[`mcpServers.${name}`] ?? "config", env)]),
  )
}

/** A variable that is not set and has no default is a mistake in the file. */
export function expandVariables<T>(value: T, key: string, path: string, env: Env): T {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
      const found = env[name]
      if (found !== undefined && found !== "") return found
      if (fallback !== undefined) return fallback
      throw new UsageError(`${path}: ${key}: \${${name}} is not set; set the variable or give a default with \${${name}:-value}`)
    }) as T
  }
  if (Array.isArray(value)) return value.map((item, i) => expandVariables(item, `${key}.${i}`, path, env)) as T
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, expandVariables(item, `${key}.${k}`, path, env)])) as T
  }
  return value
}
