/**
 * The configuration files' shape: `clanka.json` (project), `$XDG_CONFIG_HOME/clanka/config.json`
 * (user) and the `mcpServers` of a project's `.mcp.json`. One valibot schema per file kind; the
 * loader (load.ts) reports the first mistake with the file's path and the key.
 */
import * as v from "valibot"
import { SandboxModes, StdioMcpServerSchema } from "../contract.ts"

/**
 * A server name becomes `mcp.<name>` in scripts: kept to characters that read well there. The
 * names JavaScript objects treat specially are out: valibot's records drop them without a word,
 * and `__proto__` as a key sets a prototype instead of adding a server.
 */
export const SERVER_NAME = /^(?!(?:__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_-]*$/
export const SERVER_NAME_RULE = "server names are letters, digits, _ and - (they become mcp.<name> in scripts)"

/** Why `name` cannot be a server's name. */
export function serverNameRule(name: string): string {
  return /^(?:__proto__|constructor|prototype)$/.test(name) ? `${name} cannot be a server name (JavaScript objects treat it specially)` : SERVER_NAME_RULE
}

/** An MCP server reached over Streamable HTTP, from the agent's side (with its tokens). */
export const HttpMcpServerSchema = v.looseObject({
  type: v.picklist(["http", "streamable-http"], 'type must be "http" (Streamable HTTP) or absent (stdio)'),
  url: v.pipe(v.string(), v.url("the url must be an http(s) URL"), v.regex(/^https?:/i, "the url must be an http(s) URL")),
  headers: v.optional(v.record(v.string(), v.string())),
  startupTimeoutSec: v.optional(v.pipe(v.number(), v.minValue(0.001), v.maxValue(600))),
})
export type HttpMcpServer = v.InferOutput<typeof HttpMcpServerSchema>

const StdioServerEntrySchema = v.looseObject({
  ...StdioMcpServerSchema.entries,
  type: v.optional(v.literal("stdio", 'type must be "http" (Streamable HTTP) or absent (stdio)')),
})

export type McpServerConfig = ({ type?: "stdio" } & v.InferOutput<typeof StdioMcpServerSchema>) | HttpMcpServer

/** One entry of `mcpServers`: HTTP when `type` says so, stdio otherwise (as in `.mcp.json`). */
export const McpServerSchema = v.pipe(
  v.record(v.string(), v.unknown(), "a server is an object"),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const value = dataset.value as Record<string, unknown>
    const isHttp = value.type === "http" || value.type === "streamable-http" || value.type === "sse" || (value.url !== undefined && value.command === undefined)
    if (value.type === "sse") {
      addIssue({ message: 'SSE servers are not supported; use the Streamable HTTP endpoint with "type": "http"' })
      return NEVER
    }
    const parsed = v.safeParse(isHttp ? HttpMcpServerSchema : StdioServerEntrySchema, value)
    if (parsed.success) return parsed.output as McpServerConfig
    for (const issue of parsed.issues) addIssue({ message: issue.message, path: issue.path } as never)
    return NEVER
  }),
)

const McpServersSchema = v.pipe(
  v.record(v.pipe(v.string(), v.regex(SERVER_NAME, SERVER_NAME_RULE)), McpServerSchema),
)

const durationSeconds = v.pipe(v.number(), v.minValue(0.001), v.maxValue(2147483))

/** A hook: a shell command, or {command, timeoutSec} (agent/hooks.ts). */
const HookEntrySchema = v.union(
  [
    v.pipe(v.string(), v.minLength(1, "a hook command is not empty")),
    v.strictObject({ command: v.pipe(v.string(), v.minLength(1, "a hook command is not empty")), timeoutSec: v.optional(durationSeconds) }),
  ],
  'a hook is a shell command or {"command": …, "timeoutSec": …}',
)
const HookListSchema = v.array(HookEntrySchema, "a list of hooks: shell commands or {command, timeoutSec} objects")

/** `hooks`: per point of a run, the commands to run there. */
export const HooksSchema = v.strictObject({
  sessionStart: v.optional(HookListSchema),
  preExecute: v.optional(HookListSchema),
  postExecute: v.optional(HookListSchema),
  stop: v.optional(HookListSchema),
})

/** `clanka.json` and the user's `config.json`: the defaults the flags set, and MCP servers. */
export const ConfigSchema = v.strictObject({
  $schema: v.optional(v.string()),
  model: v.optional(v.pipe(v.string(), v.minLength(1))),
  subagentModel: v.optional(v.pipe(v.string(), v.minLength(1))),
  sandbox: v.optional(v.picklist(SandboxModes, `must be one of ${SandboxModes.join(", ")}`)),
  network: v.optional(v.boolean()),
  /** Further writable directories; relative ones are taken from the file's directory. */
  writable: v.optional(v.array(v.string())),
  /** Names of environment variables passed to the executor (--env). */
  env: v.optional(v.array(v.string())),
  output: v.optional(v.picklist(["pretty", "ndjson", "text"], "must be pretty, ndjson or text")),
  maxTurns: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /** Seconds (--turn-timeout). */
  turnTimeout: v.optional(durationSeconds),
  system: v.optional(v.string()),
  remoteBin: v.optional(v.pipe(v.string(), v.minLength(1))),
  mcpServers: v.optional(McpServersSchema),
  /** Shell commands run on the agent's side: from the user's config and trusted projects only. */
  hooks: v.optional(HooksSchema),
})
export type Config = v.InferOutput<typeof ConfigSchema>

