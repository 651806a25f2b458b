/**
 * MCP tools as sandbox tools: `mcp.<server>.<tool>` entries of the executor's ToolRegistry, whose
 * arguments are checked against the tool's JSON Schema before the call (the same InvalidParamsError
 * a built-in tool gives), and `mcp.describe`. Results become what a script wants: text as a string,
 * structured content as an object, images and resources as short placeholders. An image is also
 * shown to the model after the script's output, when the run's model takes images.
 */
import * as v from "valibot"
import type { ExecuteOptions } from "../contract.ts"
import { ToolError } from "../errors.ts"
import { checkImage, ImageError } from "../images/load.ts"
import { validateJson } from "../schema/validate.ts"
import type { Tool, ToolContext } from "../tools/tool.ts"
import { SERVER_NAME } from "../config/schema.ts"
import { describeTool, type McpToolInfo, toolList } from "./declarations.ts"

/** Calls the tool on its server with checked arguments; resolves to the converted result. */
export type McpCall = (tool: McpToolInfo, args: Record<string, unknown>, ctx: ToolContext) => Promise<unknown>

/** The sandbox's name of a tool: the worker turns `mcp.server.tool` into `mcp.server.tool(…)`. */
const mcpToolName = (tool: McpToolInfo) => `mcp.${tool.server}.${tool.jsName}`

/** A server that failed to start or was skipped, and why. */
export interface McpFailure {
  server: string
  error: string
}

/**
 * `failures`: each becomes a hidden tool `mcp.<server>`, which the realm makes `mcp.<server>`'s every
 * function: a script that calls one is told why the server is missing.
 */
export function mcpTools(infos: readonly McpToolInfo[], call: McpCall, failures: readonly McpFailure[] = []): Tool[] {
  const tools: Tool[] = infos.map((info) => ({
    name: mcpToolName(info),
    description: info.description ?? "",
    params: argsSchema(info.inputSchema),
    result: v.unknown(),
    // Declared inside `declare const mcp` (declarations.ts), not as a function of its own.
    hidden: true,
    run: (args: Record<string, unknown> | undefined, ctx: ToolContext) => call(info, args ?? {}, ctx),
  }))
  tools.push(describe(infos, failures))
  for (const failure of failures) if (SERVER_NAME.test(failure.server)) tools.push(unavailable(failure))
  return tools
}

/** `mcp.x.tool(…)` of a server that is not there rejects with `mcp.x is not available: why`. */
function unavailable({ server, error }: McpFailure): Tool {
  const message = `mcp.${server} is not available: ${error}`
  return {
    name: `mcp.${server}`,
    description: message,
    params: v.unknown(),
    result: v.never(),
    hidden: true,
    keepsIndex: true,
    async run() {
      throw new ToolError(message)
    },
  }
}

/** Valibot schema that checks a value against a JSON Schema, one issue per mistake. */
function argsSchema(schema: unknown): v.GenericSchema<unknown, Record<string, unknown> | undefined> {
  return v.pipe(
    v.unknown(),
    v.rawCheck(({ dataset, addIssue }) => {
      const value = dataset.value === undefined ? {} : dataset.value
      for (const message of validateJson(schema ?? {}, value)) addIssue({ message: message.replace(/^\$\./, "").replace(/^\$/, "args") })
    }),
  ) as v.GenericSchema<unknown, Record<string, unknown> | undefined>
}

function describe(infos: readonly McpToolInfo[], failures: readonly McpFailure[]): Tool {
  return {
    name: "mcp.describe",
    description: "The full declaration of one MCP tool",
    params: v.pipe(v.string(), v.minLength(1)),
    paramName: "name",
    result: v.string(),
    hidden: true,
    async run(name: string) {
      const [server, ...rest] = name.replace(/^mcp\./, "").split(".")
      const tool = rest.join(".")
      // A server alone: its tools, one line each (declared by name only when there are thousands).
      if (rest.length === 0 && infos.some((info) => info.server === server)) return toolList(infos.filter((info) => info.server === server))
      const found = infos.find((info) => info.server === server && (info.jsName === tool || info.name === tool))
      if (found) return describeTool(found)
      const failed = failures.find((failure) => failure.server === server)
      if (failed) throw new ToolError(`mcp.${server} is not available: ${failed.error}`)
      const known = infos.filter((info) => info.server === server).map((info) => `${server}.${info.jsName}`)
      const hint = known.length ? `; ${server} has ${known.join(", ")}` : `; servers: ${[...new Set(infos.map((info) => info.server))].join(", ")}`
      throw new ToolError(`no MCP tool "${name}" (write "server.tool")${hint}`)
    },
  }
}

interface ContentBlock {
  type: string
  text?: string
  data?: string
  mimeType?: string
  uri?: string
  name?: string
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string }
}

/** Where a call's images go: the execute's image policy, and the tool's name for the model (`mcp.server.tool`). */
export interface McpImages {
  policy: ExecuteOptions["images"]
  tool: string
}

/**
 * A CallToolResult as the script gets it; `isError` throws with the server's text. Its images go
 * to `images` (each one's placeholder then says so, or why it was not shown).
 */
export function convertResult(result: { content?: unknown; structuredContent?: unknown; isError?: unknown }, images?: McpImages): unknown {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : []
  if (result.isError) {
    const text = blocks.map((block) => placeholder(block)).join("\n").trim()
    throw new ToolError(text || "the tool reported an error without a message")
  }
  const lines = blocks.map((block) => placeholder(block, block.type === "image" ? showImage(block, images) : undefined))
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent
  return lines.join("\n")
}

/** Hands an image block to the model; what its placeholder adds (undefined: there is no model to show it to). */
function showImage(block: ContentBlock, images: McpImages | undefined): string | undefined {
  const policy = images?.policy
  if (!policy) return undefined
  if ("refused" in policy) return `not shown: ${policy.refused}`
  try {
    const image = checkImage(Buffer.from(block.data ?? "", "base64"), `the image of ${images.tool}`, policy)
    const { bytes: _, ...shown } = image
    policy.receive({ ...shown, tool: images.tool })
    return "shown after this output"
  } catch (error) {
    if (error instanceof ImageError) return `not shown: ${error.message}`
    throw error
  }
}

function placeholder(block: ContentBlock, note?: string): string {
  switch (block.type) {
    case "text":
      return block.text ?? ""
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType ?? "unknown type"}, ${base64Bytes(block.data)} bytes${note ? `, ${note}` : ""}]`
    case "resource_link":
      return `[resource link: ${block.name ? `${block.name} ` : ""}${block.uri ?? ""}]`
    case "resource": {
      const resource = block.resource ?? {}
      const size = resource.text !== undefined ? `${resource.text.length} characters` : `${base64Bytes(resource.blob)} bytes`
      return `[resource: ${resource.uri ?? ""} (${resource.mimeType ?? "unknown type"}, ${size})]`
    }
    default:
      return `[${block.type} content]`
  }
}

function base64Bytes(data: string | undefined): number {
  if (!data) return 0
  return Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0)
}
