import type * as v from "valibot"
import type { Tool } from "./tool.ts"
import { isOptionalSchema } from "../schema/node.ts"
import { commentText, renderType } from "../schema/to-typescript.ts"

/** `/** description *\/ declare function name(param: T): Promise<R>` for one tool. */
export function renderToolDeclaration(tool: Tool, options: { allArgs?: boolean } = {}): string {
  const resultType = renderType(tool.result)
  const takesNothing = tool.params.type === "void" || tool.params.type === "undefined"
  const params = tool.argNames
    ? spreadParams(tool, options.allArgs ? undefined : tool.declaredArgs)
    : takesNothing
      ? []
      : [`${tool.paramName ?? "options"}${isOptionalSchema(tool.params) ? "?" : ""}: ${renderType(tool.params)}`]
  return `/** ${commentText(tool.description)} */\ndeclare function ${tool.name}(${params.join(", ")}): Promise<${resultType}>`
}

/** `query: string, options?: {…}` for a tool whose params are a tuple of its arguments. */
function spreadParams(tool: Tool, count?: number): string[] {
  const items = (tool.params as unknown as { items: v.GenericSchema[] }).items
  return tool.argNames!.slice(0, count).map((name, i) => `${name}${isOptionalSchema(items[i]!) ? "?" : ""}: ${renderType(items[i]!)}`)
}

/** The declarations the model sees; hidden tools are declared by the agent when they apply. */
export function renderToolsDts(tools: readonly Tool[]): string {
  return tools.filter((tool) => !tool.hidden).map((tool) => renderToolDeclaration(tool)).join("\n") + "\n" + FETCH_DECLARATION
}

const FETCH_DECLARATION =
  "/** The standard fetch API. */\ndeclare const fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>"
