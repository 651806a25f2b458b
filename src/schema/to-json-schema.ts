import type * as v from "valibot"
import { isOptionalSchema, schemaDescription, type SchemaNode } from "./node.ts"

/**
 * Renders a valibot schema as JSON Schema, for the declarations a provider's API takes (the model's
 * one tool). Covers the shapes tool inputs use; anything else renders as `{}` (any value).
 */
export function toJsonSchema(schema: v.GenericSchema): Record<string, unknown> {
  const s = schema as SchemaNode
  const description = schemaDescription(s)
  const withDescription = (rendered: Record<string, unknown>) => (description ? { ...rendered, description } : rendered)
  switch (s.type) {
    case "string":
    case "number":
    case "boolean":
    case "null":
      return withDescription({ type: s.type })
    case "literal":
      return withDescription({ const: s.literal })
    case "picklist":
      return withDescription({ enum: s.options })
    case "optional":
    case "exact_optional":
    case "nullish":
      return toJsonSchema(s.wrapped!)
    case "nullable":
      return withDescription({ anyOf: [toJsonSchema(s.wrapped!), { type: "null" }] })
    case "array":
      return withDescription({ type: "array", items: toJsonSchema(s.item!) })
    case "union":
      return withDescription({ anyOf: (s.options as SchemaNode[]).map(toJsonSchema) })
    case "object":
    case "loose_object":
    case "strict_object": {
      const entries = Object.entries(s.entries!)
      return withDescription({
        type: "object",
        properties: Object.fromEntries(entries.map(([name, field]) => [name, toJsonSchema(field)])),
        required: entries.filter(([, field]) => !isOptionalSchema(field)).map(([name]) => name),
        additionalProperties: s.type === "loose_object",
      })
    }
    default:
      return withDescription({})
  }
}
