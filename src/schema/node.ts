// Reading valibot schema objects, for the renderers beside this file.
import type * as v from "valibot"

/** The parts of a valibot schema object that rendering reads. */
export type SchemaNode = v.GenericSchema & {
  entries?: Record<string, SchemaNode>
  wrapped?: SchemaNode
  item?: SchemaNode
  options?: SchemaNode[] | unknown[]
  literal?: unknown
  key?: SchemaNode
  value?: SchemaNode
  pipe?: Array<{ kind: string; type: string; description?: string }>
}

/** The text attached with v.description() inside a v.pipe, if any. */
export function schemaDescription(schema: v.GenericSchema): string | undefined {
  const pipe = (schema as SchemaNode).pipe ?? []
  return pipe.find((item) => item.type === "description")?.description
}

export function isOptionalSchema(schema: v.GenericSchema): boolean {
  const type = (schema as SchemaNode).type
  return type === "optional" || type === "exact_optional" || type === "nullish"
}

