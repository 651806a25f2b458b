import type * as v from "valibot"
import type { Tool } from "./tool.ts"

type AnySchema = v.GenericSchema & {
  entries?: Record<string, AnySchema>
  wrapped?: AnySchema
  item?: AnySchema
  options?: AnySchema[] | unknown[]
  literal?: unknown
  key?: AnySchema
  value?: AnySchema
  pipe?: Array<{ kind: string; type: string; description?: string }>
}

/** The `/** … *\/` text attached with v.description() inside a v.pipe, if any. */
export function schemaDescription(schema: v.GenericSchema): string | undefined {
  const pipe = (schema as AnySchema).pipe ?? []
  return pipe.find((item) => item.type === "description")?.description
}

/** Text safe inside a `/** … *\/` comment. */
function commentText(text: string): string {
  return text.replaceAll("*/", "*\\/")
}

/** Renders a valibot schema as a TypeScript type expression. */
export function renderType(schema: v.GenericSchema): string {
  const s = schema as AnySchema
  switch (s.type) {
    case "string":
    case "number":
    case "boolean":
    case "null":
    case "undefined":
    case "unknown":
    case "any":
    case "void":
    case "never":
      return s.type
    case "literal":
      return JSON.stringify(s.literal)
    case "picklist":
      return (s.options as unknown[]).map((o) => JSON.stringify(o)).join(" | ")
    case "optional":
    case "exact_optional":
      return renderType(s.wrapped!)
    case "nullable":
      return `${renderType(s.wrapped!)} | null`
    case "nullish":
      return `${renderType(s.wrapped!)} | null | undefined`
    case "array": {
      const inner = renderType(s.item!)
      return /[ |]/.test(inner) ? `Array<${inner}>` : `${inner}[]`
    }
    case "union":
      return (s.options as AnySchema[]).map(renderType).join(" | ")
    case "record":
      return `Record<${renderType(s.key!)}, ${renderType(s.value!)}>`
    case "object":
    case "loose_object":
    case "strict_object": {
      const fields = Object.entries(s.entries!).map(([name, field]) => {
        const optional = field.type === "optional" || field.type === "exact_optional" || field.type === "nullish"
        const doc = schemaDescription(field)
        return `${doc ? `/** ${commentText(doc)} */ ` : ""}${name}${optional ? "?" : ""}: ${renderType(field)}`
      })
      return fields.length ? `{ ${fields.join("; ")} }` : "{}"
    }
    default:
      return "unknown"
  }
}

function isOptional(schema: v.GenericSchema): boolean {
  const type = (schema as AnySchema).type
  return type === "optional" || type === "exact_optional" || type === "nullish"
}

/** `/** description *\/ declare function name(param: T): Promise<R>` for one tool. */
export function renderToolDeclaration(tool: Tool): string {
  const resultType = renderType(tool.result)
  const takesNothing = tool.params.type === "void" || tool.params.type === "undefined"
  const param = takesNothing
    ? ""
    : `${tool.paramName ?? "options"}${isOptional(tool.params) ? "?" : ""}: ${renderType(tool.params)}`
  return `/** ${commentText(tool.description)} */\ndeclare function ${tool.name}(${param}): Promise<${resultType}>`
}

export function renderToolsDts(tools: readonly Tool[]): string {
  return tools.map(renderToolDeclaration).join("\n") + "\n" + FETCH_DECLARATION
}

const FETCH_DECLARATION =
  "/** The standard fetch API. */\ndeclare const fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>"
