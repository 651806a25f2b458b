import type * as v from "valibot"
import type { Tool } from "./tool.ts"
import { isOptionalSchema } from "../schema/node.ts"
import { commentText, renderType } from "../schema/to-typescript.ts"

/** `/** description *\/ declare function name(param: T): Promise<R>` for one tool. */
export function renderToolDeclaration(tool: Tool): string {
  const resultType = renderType(tool.result)
  const takesNothing = tool.params.type === "void" || tool.params.type === "undefined"
  const param = tool.argNames
    ? spreadParams(tool)
    : takesNothing
      ? ""
      : `${tool.paramName ?? "options"}${isOptionalSchema(tool.params) ? "?" : ""}: ${renderType(tool.params)}`
  return `/** ${commentText(tool.description)} */\ndeclare function ${tool.name}(${param}): Promise<${resultType}>`
}

/** `query: string, options?: {…}` for a tool whose params are a tuple of its arguments. */
function spreadParams(tool: Tool): string {
  const items = (tool.params as unknown as { items: v.GenericSchema[] }).items
  return tool.argNames!.map((name, i) => `${name}${isOptionalSchema(items[i]!) ? "?" : ""}: ${renderType(items[i]!)}`).join(", ")
}

export function renderToolsDts(tools: readonly Tool[]): string {
  return tools.map(renderToolDeclaration).join("\n") + "\n" + FETCH_DECLARATION
}

const FETCH_DECLARATION =
  "/** The standard fetch API. */\ndeclare const fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>"
