/**
 * TypeScript declarations of MCP tools, generated from their JSON Schemas: one `declare const mcp`
 * with a property per server and per tool. With many tools the prompt gets signatures only (no
 * comments, nested objects elided) and `mcp.describe("server.tool")` returns the full one.
 */
import { commentText } from "../schema/to-typescript.ts"
import { visible } from "../output/visible.ts"

/** What clanka knows of one MCP tool: where it lives, its names, its schemas. */
export interface McpToolInfo {
  server: string
  /** The tool's name on its server. */
  name: string
  /** The property name in scripts: `name` made a JavaScript identifier. */
  jsName: string
  description?: string
  inputSchema: unknown
  outputSchema?: unknown
}

/** Declarations longer than this (all MCP tools together) are shortened to signatures. */
export const FULL_DECLARATIONS_MAX_CHARS = 6000
/**
 * Signatures longer than this (thousands of tools) give way to the tools' names, cut to a share of
 * NAMES_MAX_CHARS per server: the declarations are part of every model request.
 */
const SIGNATURES_MAX_CHARS = 30_000
const NAMES_MAX_CHARS = 20_000

/** `get-sum` → `get_sum`: a property a script can write as `mcp.server.get_sum(…)`. */
export function jsIdentifier(name: string): string {
  const id = name.replace(/[^A-Za-z0-9_$]/g, "_")
  return /^[0-9]/.test(id) || id === "" ? `_${id}` : id
}

/** The scripts' names of a server's tools, unique within the server. */
export function assignJsNames(names: readonly string[]): string[] {
  const taken = new Set<string>(["describe"])
  return names.map((name) => {
    let id = jsIdentifier(name)
    for (let n = 2; taken.has(id); n++) id = `${jsIdentifier(name)}_${n}`
    taken.add(id)
    return id
  })
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const propertyKey = (key: string) => (IDENTIFIER.test(key) ? key : JSON.stringify(key))

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

interface RenderOptions {
  /** Doc comments on properties. */
  comments: boolean
  /** Objects nested deeper than this render as `{ … }`. */
  maxDepth: number
}

/**
 * Schema nodes one rendering may visit. A server's schema can fan out without end (a filter whose
 * properties are filters, definitions that each use the next many times): past this the rest is
 * `unknown`, so the declarations stay bounded in time and size.
 */
const MAX_NODES = 4000

/** One rendering's bookkeeping: the `$ref`s being expanded (a ref to one of them is recursion), the nodes visited. */
interface Walk {
  root: unknown
  refs: readonly string[]
  budget: { nodes: number }
}

/** A JSON Schema as a TypeScript type; what it cannot express (recursion included) becomes `unknown`. */
export function schemaToType(schema: unknown, options: RenderOptions = { comments: true, maxDepth: 8 }): string {
  return renderSchema(schema, options, { root: schema, refs: [], budget: { nodes: 0 } }, 0)
}

function renderSchema(schema: unknown, options: RenderOptions, walk: Walk, depth: number): string {
  if (schema === true || schema === undefined) return "unknown"
  if (schema === false) return "never"
  if (!isObject(schema)) return "unknown"
  if (++walk.budget.nodes > MAX_NODES) return "unknown"
  const again = (sub: unknown, d = depth, w = walk) => renderSchema(sub, options, w, d)
  if (typeof schema.$ref === "string") {
    const ref = schema.$ref
    if (walk.refs.length > 10 || walk.refs.includes(ref) || !ref.startsWith("#")) return "unknown"
    let target: unknown = walk.root
    for (const part of ref.slice(1).split("/").filter(Boolean)) {
      target = isObject(target) ? target[decodeURIComponent(part).replaceAll("~1", "/").replaceAll("~0", "~")] : undefined
    }
    return target === undefined ? "unknown" : again(target, depth, { ...walk, refs: [...walk.refs, ref] })
  }
  if ("const" in schema) return JSON.stringify(schema.const) ?? "unknown"
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" | ") || "never"
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(schema[key])) return union(schema[key].map((sub) => again(sub)))
  }
  if (Array.isArray(schema.allOf)) return schema.allOf.map((sub) => wrap(again(sub))).join(" & ") || "unknown"
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [guessType(schema)] : [schema.type]
  return union(
    types.map((type) => {
      switch (type) {
        case "string":
          return "string"
        case "number":
        case "integer":
          return "number"
        case "boolean":
          return "boolean"
        case "null":
          return "null"
        case "array": {
          const items = Array.isArray(schema.prefixItems) ? undefined : schema.items
          return `${wrap(again(items))}[]`
        }
        case "object":
          return objectType(schema, options, depth, (sub) => again(sub, depth + 1))
        default:
          return "unknown"
      }
    }),
  )
}

function guessType(schema: Json): string | undefined {
  if (isObject(schema.properties) || schema.additionalProperties !== undefined) return "object"
  if (schema.items !== undefined) return "array"
  return undefined
}

function objectType(schema: Json, options: RenderOptions, depth: number, render: (sub: unknown) => string): string {
  const properties = isObject(schema.properties) ? schema.properties : {}
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])
  const keys = Object.keys(properties)
  const extra = schema.additionalProperties
  if (keys.length > 0 && depth >= options.maxDepth) return "{ … }"
  const members = keys.map((key) => {
    const sub = properties[key]
    const description = options.comments && isObject(sub) && typeof sub.description === "string" ? `/** ${commentText(oneLine(sub.description))} */ ` : ""
    return `${description}${propertyKey(key)}${required.has(key) ? "" : "?"}: ${render(sub)}`
  })
  if (extra !== undefined && extra !== false && extra !== true) members.push(`[key: string]: ${render(extra)}`)
  if (members.length === 0) return extra === false ? "{}" : "Record<string, unknown>"
  return `{ ${members.join("; ")} }`
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)]
  if (unique.includes("unknown")) return "unknown"
  return unique.join(" | ") || "unknown"
}

function wrap(type: string): string {
  return /[|&]/.test(type) && !/^\{.*\}$/.test(type) ? `(${type})` : type
}

/** A server's text on one line; its control characters (a terminal's escape sequences) shown as `cat -v` does. */
function oneLine(text: string): string {
  return visible(text.replace(/\s+/g, " ").trim())
}

/** A name as a JSON string whose control characters are all escaped (JSON leaves DEL and C1 as they are). */
function quoted(name: string): string {
  return JSON.stringify(name).replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
}

/** Whether the tool may be called without arguments (no required properties). */
export function argsOptional(schema: unknown): boolean {
  return !(isObject(schema) && Array.isArray(schema.required) && schema.required.length > 0)
}

/** `name(args: {…}): Promise<R>`, full (comments, every level) or as a short signature. */
export function toolSignature(tool: McpToolInfo, full: boolean): string {
  const options = full ? { comments: true, maxDepth: 8 } : { comments: false, maxDepth: 1 }
  const args = schemaToType(tool.inputSchema, options)
  const result = tool.outputSchema === undefined ? "string" : schemaToType(tool.outputSchema, options)
  return `${tool.jsName}(args${argsOptional(tool.inputSchema) ? "?" : ""}: ${args}): Promise<${result}>`
}

function toolDoc(tool: McpToolInfo, full: boolean): string {
  let text = oneLine(tool.description ?? "")
  if (!full && text.length > 100) text = text.slice(0, 99) + "…"
  const original = tool.name === tool.jsName ? "" : ` (MCP name ${quoted(tool.name)})`
  return text || original ? `/** ${commentText(text + original)} */\n` : ""
}

/** The full declaration of one tool, as `mcp.describe` returns it. */
export function describeTool(tool: McpToolInfo): string {
  return `${toolDoc(tool, true)}mcp.${tool.server}.${toolSignature(tool, true)}`
}

/** One line per tool of a list, as `mcp.describe("server")` gives them: name and the start of its description. */
export function toolList(tools: readonly McpToolInfo[]): string {
  return tools.map((tool) => `mcp.${tool.server}.${tool.jsName}: ${toolDoc(tool, false).replace(/^\/\*\* |\s*\*\/\n$/g, "")}`.trimEnd()).join("\n")
}

/** A server with too many tools to declare: their names (as many as `budget` characters hold) and an index signature. */
function namesOnly(server: string, list: readonly McpToolInfo[], budget: number): string {
  const names: string[] = []
  let used = 0
  for (const tool of list) {
    if (used + tool.jsName.length + 2 > budget) break
    names.push(tool.jsName)
    used += tool.jsName.length + 2
  }
  const more = list.length - names.length
  return [
    `  ${propertyKey(server)}: {`,
    `    // ${list.length} tools, too many to declare here: mcp.describe(${JSON.stringify(server)}) lists them, mcp.describe(${JSON.stringify(`${server}.<tool>`)}) gives one's declaration`,
    `    // ${names.join(", ")}${more > 0 ? ` … and ${more} more` : ""}`,
    "    [tool: string]: (args?: Record<string, unknown>) => Promise<unknown>",
    "  }",
  ].join("\n")
}

/**
 * `declare const mcp: {…}` for every tool, preceded by a comment line per server that failed.
 * Full declarations when they fit FULL_DECLARATIONS_MAX_CHARS, else signatures only, and with
 * thousands of tools their names only.
 */
export function renderMcpDeclarations(tools: readonly McpToolInfo[], failures: readonly { server: string; error: string }[], maxChars = FULL_DECLARATIONS_MAX_CHARS): string {
  const lines = failures.map(({ server, error }) => `// MCP server "${server}" is unavailable (its tools are missing): ${oneLine(error)}`)
  if (tools.length === 0) return lines.join("\n")
  const servers = new Map<string, McpToolInfo[]>()
  for (const tool of tools) {
    const list = servers.get(tool.server)
    if (list) list.push(tool)
    else servers.set(tool.server, [tool])
  }
  const render = (level: "full" | "signatures" | "names") => {
    const full = level === "full"
    const body = [...servers].map(([server, list]) => {
      if (level === "names") return namesOnly(server, list, Math.floor(NAMES_MAX_CHARS / servers.size))
      const members = list.map((tool) => indent(toolDoc(tool, full) + toolSignature(tool, full), "    "))
      return `  ${propertyKey(server)}: {\n${members.join("\n")}\n  }`
    })
    const how = full ? "" : " Signatures only: mcp.describe(\"server.tool\") returns one tool's full declaration."
    return [
      `/** Tools of MCP servers: await mcp.<server>.<tool>(args). Results: text as a string, structured content as an object; a tool error throws.${how} */`,
      "declare const mcp: {",
      '  /** The full declaration of one MCP tool: mcp.describe("server.tool"). */',
      "  describe(name: string): Promise<string>",
      ...body,
      "}",
    ].join("\n")
  }
  const full = render("full")
  const signatures = full.length <= maxChars ? undefined : render("signatures")
  lines.push(signatures === undefined ? full : signatures.length <= SIGNATURES_MAX_CHARS ? signatures : render("names"))
  return lines.join("\n")
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => prefix + line)
    .join("\n")
}
