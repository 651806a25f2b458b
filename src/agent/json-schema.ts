/**
 * A small JSON Schema validator for --json-schema results: the keywords people write by hand
 * (type, enum, const, properties, required, additionalProperties, items, min/max bounds, pattern,
 * anyOf/oneOf/allOf/not, local $ref). Unknown keywords are ignored, as the standard says.
 * Errors read `$.path: what is wrong`, for the model to fix.
 */
type Schema = boolean | Record<string, any>

export function validateJson(schema: unknown, value: unknown): string[] {
  const errors: string[] = []
  check(schema as Schema, value, "$", schema as Schema, errors)
  return errors
}

function typeOf(value: unknown): string {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number"
  return typeof value
}

function matchesType(type: string, value: unknown): boolean {
  const actual = typeOf(value)
  return type === actual || (type === "number" && actual === "integer")
}

function resolveRef(root: Schema, ref: string): Schema {
  if (!ref.startsWith("#")) throw new Error(`unsupported $ref ${ref}: only local references work`)
  let node: any = root
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    node = node?.[raw.replace(/~1/g, "/").replace(/~0/g, "~")]
  }
  if (node === undefined) throw new Error(`$ref ${ref} points nowhere`)
  return node
}

function check(schema: Schema, value: unknown, path: string, root: Schema, errors: string[]): void {
  if (schema === true) return
  if (schema === false) {
    errors.push(`${path}: no value is allowed here`)
    return
  }
  if (typeof schema.$ref === "string") check(resolveRef(root, schema.$ref), value, path, root, errors)
  if (schema.type !== undefined) {
    const types: string[] = [schema.type].flat()
    if (!types.some((type) => matchesType(type, value))) {
      errors.push(`${path}: expected ${types.join(" or ")}, got ${typeOf(value)}`)
      return
    }
  }
  if (schema.enum && !schema.enum.some((item: unknown) => deepEqual(item, value))) {
    errors.push(`${path}: must be one of ${schema.enum.map((item: unknown) => JSON.stringify(item)).join(", ")}`)
  }
  if ("const" in schema && !deepEqual(schema.const, value)) errors.push(`${path}: must be ${JSON.stringify(schema.const)}`)

  if (typeof value === "string") {
    const length = [...value].length
    if (schema.minLength !== undefined && length < schema.minLength) errors.push(`${path}: shorter than ${schema.minLength} characters`)
    if (schema.maxLength !== undefined && length > schema.maxLength) errors.push(`${path}: longer than ${schema.maxLength} characters`)
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) errors.push(`${path}: does not match /${schema.pattern}/`)
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${path}: less than ${schema.minimum}`)
    if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${path}: greater than ${schema.maximum}`)
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) errors.push(`${path}: not greater than ${schema.exclusiveMinimum}`)
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) errors.push(`${path}: not less than ${schema.exclusiveMaximum}`)
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) errors.push(`${path}: fewer than ${schema.minItems} items`)
    if (schema.maxItems !== undefined && value.length > schema.maxItems) errors.push(`${path}: more than ${schema.maxItems} items`)
    if (schema.items !== undefined && !Array.isArray(schema.items)) {
      value.forEach((item, index) => check(schema.items, item, `${path}[${index}]`, root, errors))
    }
    if (schema.uniqueItems && value.some((item, i) => value.findIndex((other) => deepEqual(item, other)) !== i)) {
      errors.push(`${path}: items must be unique`)
    }
  }
  if (typeOf(value) === "object") {
    const object = value as Record<string, unknown>
    for (const key of schema.required ?? []) {
      if (!(key in object)) errors.push(`${path}: missing required property "${key}"`)
    }
    const properties: Record<string, Schema> = schema.properties ?? {}
    for (const [key, item] of Object.entries(object)) {
      if (key in properties) check(properties[key]!, item, `${path}.${key}`, root, errors)
      else if (schema.additionalProperties === false) errors.push(`${path}: unexpected property "${key}"`)
      else if (typeof schema.additionalProperties === "object") check(schema.additionalProperties, item, `${path}.${key}`, root, errors)
    }
  }
  if (schema.allOf) for (const sub of schema.allOf) check(sub, value, path, root, errors)
  if (schema.anyOf && !schema.anyOf.some((sub: Schema) => validateAt(sub, value, path, root).length === 0)) {
    errors.push(`${path}: matches none of the allowed shapes (anyOf)`)
  }
  if (schema.oneOf) {
    const matching = schema.oneOf.filter((sub: Schema) => validateAt(sub, value, path, root).length === 0).length
    if (matching !== 1) errors.push(`${path}: must match exactly one shape (oneOf), matches ${matching}`)
  }
  if (schema.not !== undefined && validateAt(schema.not, value, path, root).length === 0) errors.push(`${path}: matches a forbidden shape (not)`)
}

function validateAt(schema: Schema, value: unknown, path: string, root: Schema): string[] {
  const errors: string[] = []
  check(schema, value, path, root, errors)
  return errors
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  return keysA.length === keysB.length && keysA.every((key) => deepEqual((a as any)[key], (b as any)[key]))
}
