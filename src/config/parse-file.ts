/**
 * One configuration file's bytes → its values. `clanka.json` and the user's `config.json` are
 * clanka's own: any mistake in them is the user's to fix (exit 2). A project's `.mcp.json` is often
 * written for another agent: a server clanka cannot use (SSE, a name that cannot be `mcp.<name>`,
 * a shape it does not know) is skipped with its reason, and the rest of the file counts.
 */
import { dirname, isAbsolute, resolve } from "node:path"
import * as v from "valibot"
import { UsageError } from "../errors.ts"
import { type Config, ConfigSchema, type McpServerConfig, McpServerSchema, SERVER_NAME, serverNameRule } from "./schema.ts"

/** A server of a `.mcp.json` that clanka cannot use, and why. */
export interface SkippedServer {
  server: string
  why: string
}

export interface ParsedFile {
  values: Config
  skipped: SkippedServer[]
}

/**
 * `untrusted`: a project file the user has not trusted. It may be a symlink to any file clanka can
 * read (a token, an env file on a CI runner), and the parser's message quotes the word it stopped
 * at, so that word is left out: the error reaches a log others may read.
 */
export function parseConfigFile(path: string, kind: "config" | "mcp", content: Buffer, untrusted = false): ParsedFile {
  let json: unknown
  try {
    json = JSON.parse(content.toString("utf8"))
  } catch (error) {
    const message = (error as Error).message
    throw new UsageError(`${path}: not JSON: ${untrusted ? message.replace(/\s*"[^]*$/, "") : message}`)
  }
  const file = expectObject(json, path)
  if (file.mcpServers !== undefined) expectObject(file.mcpServers, path, "mcpServers")
  if (kind === "mcp") return parseMcpJson(file)
  // valibot's record leaves these names out before any check sees them: said here instead.
  for (const server of Object.keys(file.mcpServers ?? {})) {
    if (!SERVER_NAME.test(server)) throw new UsageError(`${path}: mcpServers.${server}: ${serverNameRule(server)}`)
  }
  const parsed = v.safeParse(ConfigSchema, file)
  if (!parsed.success) throw new UsageError(`${path}: ${describeIssue(parsed.issues[0]!)}`)
  const values: Config = parsed.output
  if (values.writable) values.writable = values.writable.map((dir: string) => (isAbsolute(dir) ? dir : resolve(dirname(path), dir)))
  return { values, skipped: [] }
}

/** Only `mcpServers` is read; other keys are the other agents'. */
function parseMcpJson(file: Record<string, unknown>): ParsedFile {
  const servers: Record<string, McpServerConfig> = {}
  const skipped: SkippedServer[] = []
  for (const [server, entry] of Object.entries((file.mcpServers ?? {}) as Record<string, unknown>)) {
    if (!SERVER_NAME.test(server)) {
      skipped.push({ server, why: serverNameRule(server) })
      continue
    }
    const parsed = v.safeParse(McpServerSchema, entry)
    if (parsed.success) servers[server] = parsed.output as McpServerConfig
    else skipped.push({ server, why: describeIssue(parsed.issues[0]!) })
  }
  return { values: Object.keys(servers).length > 0 ? { mcpServers: servers } : {}, skipped }
}

/** The value as an object, or exit 2 saying what was found instead (`key`: where it was). */
function expectObject(value: unknown, path: string, key?: string): Record<string, unknown> {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>
  const found = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "boolean" ? String(value) : `a ${typeof value}`
  throw new UsageError(`${path}: ${key ? `${key}: ` : ""}expected a JSON object, found ${found}`)
}

/** `key.path: what is wrong`, or `unknown key "x"` for a key the file may not hold. */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  const path = (issue.path ?? []).map((item) => String(item.key))
  if (issue.type === "strict_object") {
    const key = path.at(-1) ?? String(issue.input)
    const where = path.slice(0, -1).join(".")
    return `unknown key "${key}"${where ? ` in ${where}` : ""}`
  }
  const message = issue.message.startsWith("Invalid ") ? issue.message.replace(/^Invalid (\w+): /, "").replace(/^Expected/, "expected") : issue.message
  return path.length ? `${path.join(".")}: ${message}` : message
}
