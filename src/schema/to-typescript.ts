import type * as v from "valibot"
import { isOptionalSchema, schemaDescription, type SchemaNode } from "./node.ts"

/** Text safe inside a `/** … *\/` comment. */
export function commentText(text: string): string {
  return text.replaceAll("*/", "*\\/")
}

/** Renders a valibot schema as a TypeScript type expression. */
export function renderType(schema: v.GenericSchema): string {
  const s = schema as SchemaNode
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
      return (s.options as SchemaNode[]).map(renderType).join(" | ")
    case "record":
      return `Record<${renderType(s.key!)}, ${renderType(s.value!)}>`
    case "object":
    case "loose_object":
    case "strict_object": {
      const fields = Object.entries(s.entries!).map(([name, field]) => {
        const optional = isOptionalSchema(field)
        const doc = schemaDescription(field)
        return `${doc ? `/** ${commentText(doc)} */ ` : ""}${name}${optional ? "?" : ""}: ${renderType(field)}`
      })
      return fields.length ? `{ ${fields.join("; ")} }` : "{}"
    }
    default:
      return "unknown"
  }
}

