/**
 * A small JSON Schema validator for --json-schema results: the keywords people write by hand
 * (type, enum, const, properties, patternProperties, required, additionalProperties, items,
 * min/max bounds, pattern, anyOf/oneOf/allOf/not, local $ref). Unknown keywords are ignored, as the
 * standard says. Errors read `$.path: what is wrong`, for the model to fix.
 *
 * The schema comes from a user's file, so the validator never throws on an odd one: a keyword of
 * the wrong shape constrains nothing, a pattern that does not compile matches everything, a $ref
 * loop that never goes into the value stops. `schemaProblem` (below) names such mistakes when the
 * file is loaded, before the model is asked anything.
 *
 * Hand-written, not ajv 8.20 or @cfworker/json-schema 4.1 (each tried behind these two
 * functions, its errors mapped to these texts). Of the 19 tests on schemas (test/schema,
 * run-schema, agent/structured) ajv passed 9 and cfworker 11; 14 and 15 with schemaProblem kept
 * from here. Neither takes draft 4's `exclusiveMinimum: true` beside draft 2020's numbers;
 * cfworker compiles patterns only with the `u` flag (`\-` throws) and throws on a null
 * sub-schema; ajv lists errors in another order; neither says where a bad pattern or $ref is, or
 * finds $ref loops. ajv adds 484 KiB to dist/clanka and, compiled, about 40 ms and 10 MiB to a
 * --json-schema run; cfworker adds 48 KiB (scripts/bench-libs.ts).
 */
export type Schema = boolean | Record<string, unknown>

export function validateJson(schema: unknown, value: unknown): string[] {
  const errors: string[] = []
  new Validation(schema).check(schema, value, "$", errors)
  return errors
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "boolean" || isObject(value)
}

const has = (object: object, key: string) => Object.hasOwn(object, key)
const numberOf = (value: unknown) => (typeof value === "number" ? value : undefined)

/** The regex of a `pattern`: with the `u` flag when it compiles so, else without (hand-written
 * patterns like `\-` are fine in plain ECMAScript regexes); the reason when neither compiles. */
function compilePattern(pattern: string): RegExp | { error: string } {
  try {
    return new RegExp(pattern, "u")
  } catch {
    try {
      return new RegExp(pattern)
    } catch (error) {
      return { error: (error as Error).message.replace(/^Invalid regular expression: /, "") }
    }
  }
}

/** Follows a local `$ref` (a JSON Pointer after `#`), or says why it cannot. */
function resolveRef(root: unknown, ref: string): { schema: Schema; pointer: string } | { problem: string } {
  if (!ref.startsWith("#")) return { problem: "is not supported: only references inside the file (starting with #) work" }
  let pointer: string
  try {
    pointer = decodeURIComponent(ref.slice(1))
  } catch {
    return { problem: "is not a valid URI fragment" }
  }
  if (pointer !== "" && !pointer.startsWith("/")) return { problem: 'is not supported: use a JSON Pointer such as "#/$defs/name"' }
  let node: unknown = root
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (typeof node !== "object" || node === null || !has(node, key)) return { problem: "points nowhere" }
    node = (node as Record<string, unknown>)[key]
  }
  if (!isSchema(node)) return { problem: `points to ${describe(node)}, not to a schema` }
  return { schema: node, pointer }
}

/** "null", "an array", "a string", … for messages about values that are not schemas. */
function describe(value: unknown): string {
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  if (value === undefined) return "nothing"
  return /^[aeiou]/.test(typeof value) ? `an ${typeof value}` : `a ${typeof value}`
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

class Validation {
  private readonly patterns = new Map<string, RegExp | undefined>()
  /** The (schema, value) pairs being checked: meeting one again is a loop that never ends. */
  private readonly active: [object, unknown][] = []

  constructor(private readonly root: unknown) {}

  check(schema: unknown, value: unknown, path: string, errors: string[]): void {
    if (schema === false) errors.push(`${path}: no value is allowed here`)
    if (!isObject(schema)) return
    if (this.active.some(([s, v]) => s === schema && Object.is(v, value))) return
    this.active.push([schema, value])
    try {
      this.keywords(schema, value, path, errors)
    } finally {
      this.active.pop()
    }
  }

  private matches(schema: unknown, value: unknown, path: string): boolean {
    const errors: string[] = []
    this.check(schema, value, path, errors)
    return errors.length === 0
  }

  private regex(pattern: string): RegExp | undefined {
    if (!this.patterns.has(pattern)) {
      const compiled = compilePattern(pattern)
      this.patterns.set(pattern, compiled instanceof RegExp ? compiled : undefined)
    }
    return this.patterns.get(pattern)
  }

  private keywords(schema: Record<string, unknown>, value: unknown, path: string, errors: string[]): void {
    if (typeof schema.$ref === "string") {
      const target = resolveRef(this.root, schema.$ref)
      if ("problem" in target) errors.push(`${path}: the schema's "$ref" "${schema.$ref}" ${target.problem}`)
      else this.check(target.schema, value, path, errors)
    }
    const types = [schema.type].flat().filter((type): type is string => typeof type === "string")
    if (types.length > 0 && !types.some((type) => matchesType(type, value))) {
      errors.push(`${path}: expected ${types.join(" or ")}, got ${typeOf(value)}`)
      return
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((item) => deepEqual(item, value))) {
      errors.push(`${path}: must be one of ${schema.enum.map((item) => JSON.stringify(item)).join(", ")}`)
    }
    if (has(schema, "const") && !deepEqual(schema.const, value)) errors.push(`${path}: must be ${JSON.stringify(schema.const)}`)

    if (typeof value === "string") this.string(schema, value, path, errors)
    if (typeof value === "number") number(schema, value, path, errors)
    if (Array.isArray(value)) this.array(schema, value, path, errors)
    if (isObject(value)) this.object(schema, value, path, errors)

    if (Array.isArray(schema.allOf)) for (const sub of schema.allOf) this.check(sub, value, path, errors)
    if (Array.isArray(schema.anyOf) && !schema.anyOf.some((sub) => this.matches(sub, value, path))) {
      errors.push(`${path}: matches none of the allowed shapes (anyOf)`)
    }
    if (Array.isArray(schema.oneOf)) {
      const matching = schema.oneOf.filter((sub) => this.matches(sub, value, path)).length
      if (matching !== 1) errors.push(`${path}: must match exactly one shape (oneOf), matches ${matching}`)
    }
    if (has(schema, "not") && isSchema(schema.not) && this.matches(schema.not, value, path)) {
      errors.push(`${path}: matches a forbidden shape (not)`)
    }
  }

  private string(schema: Record<string, unknown>, value: string, path: string, errors: string[]): void {
    const length = [...value].length
    const minLength = numberOf(schema.minLength)
    const maxLength = numberOf(schema.maxLength)
    if (minLength !== undefined && length < minLength) errors.push(`${path}: shorter than ${minLength} characters`)
    if (maxLength !== undefined && length > maxLength) errors.push(`${path}: longer than ${maxLength} characters`)
    if (typeof schema.pattern === "string" && this.regex(schema.pattern)?.test(value) === false) {
      errors.push(`${path}: does not match /${schema.pattern}/`)
    }
  }

  private array(schema: Record<string, unknown>, value: unknown[], path: string, errors: string[]): void {
    const minItems = numberOf(schema.minItems)
    const maxItems = numberOf(schema.maxItems)
    if (minItems !== undefined && value.length < minItems) errors.push(`${path}: fewer than ${minItems} items`)
    if (maxItems !== undefined && value.length > maxItems) errors.push(`${path}: more than ${maxItems} items`)
    if (isSchema(schema.items)) value.forEach((item, index) => this.check(schema.items, item, `${path}[${index}]`, errors))
    if (schema.uniqueItems === true && value.some((item, i) => value.findIndex((other) => deepEqual(item, other)) !== i)) {
      errors.push(`${path}: items must be unique`)
    }
  }

  private object(schema: Record<string, unknown>, value: Record<string, unknown>, path: string, errors: string[]): void {
    if (Array.isArray(schema.required)) {
      for (const key of schema.required) {
        if (typeof key === "string" && !has(value, key)) errors.push(`${path}: missing required property "${key}"`)
      }
    }
    const properties = isObject(schema.properties) ? schema.properties : {}
    const patterns = isObject(schema.patternProperties) ? Object.entries(schema.patternProperties) : []
    for (const [key, item] of Object.entries(value)) {
      let declared = has(properties, key)
      if (declared) this.check(properties[key], item, `${path}.${key}`, errors)
      for (const [pattern, sub] of patterns) {
        if (!this.regex(pattern)?.test(key)) continue
        declared = true
        this.check(sub, item, `${path}.${key}`, errors)
      }
      if (declared) continue
      if (schema.additionalProperties === false) errors.push(`${path}: unexpected property "${key}"`)
      else if (isObject(schema.additionalProperties)) this.check(schema.additionalProperties, item, `${path}.${key}`, errors)
    }
  }
}

function number(schema: Record<string, unknown>, value: number, path: string, errors: string[]): void {
  // Draft 4 wrote `exclusiveMinimum: true` to make `minimum` exclusive.
  const minimum = schema.exclusiveMinimum === true ? undefined : numberOf(schema.minimum)
  const maximum = schema.exclusiveMaximum === true ? undefined : numberOf(schema.maximum)
  const exclusiveMinimum = schema.exclusiveMinimum === true ? numberOf(schema.minimum) : numberOf(schema.exclusiveMinimum)
  const exclusiveMaximum = schema.exclusiveMaximum === true ? numberOf(schema.maximum) : numberOf(schema.exclusiveMaximum)
  if (minimum !== undefined && value < minimum) errors.push(`${path}: less than ${minimum}`)
  if (maximum !== undefined && value > maximum) errors.push(`${path}: greater than ${maximum}`)
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) errors.push(`${path}: not greater than ${exclusiveMinimum}`)
  if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) errors.push(`${path}: not less than ${exclusiveMaximum}`)
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  return keysA.length === keysB.length && keysA.every((key) => has(b, key) && deepEqual((a as any)[key], (b as any)[key]))
}

// ---- checking a schema when it is loaded ----

const TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"]
const NUMBERS = ["minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"]
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions"]
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf"]

/** `/properties/a~1b`, or "the top level" for the root. */
const where = (pointer: string) => pointer || "the top level"
const child = (pointer: string, ...keys: (string | number)[]) =>
  pointer + keys.map((key) => `/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("")

/**
 * What is wrong with a schema the validator would misread or choke on, as one line for the user
 * (`"pattern" at /properties/ok is not a valid regular expression: missing )`), or undefined.
 * Checks the keywords the validator uses: shapes, patterns, $refs, and $ref loops that never go
 * into the value.
 */
export function schemaProblem(schema: unknown): string | undefined {
  if (!isSchema(schema)) return `the schema must be a JSON object or true/false, not ${describe(schema)}`
  /** Every sub-schema met, with where it was first met. */
  const seen = new Map<object, string>()

  const walk = (node: unknown, at: string): string | undefined => {
    if (typeof node === "boolean") return undefined
    if (!isObject(node)) return `the schema at ${where(at)} must be a JSON object or true/false, not ${describe(node)}`
    if (seen.has(node)) return undefined
    seen.set(node, at)
    const problem = keywordProblem(node, at)
    if (problem) return problem
    const next: [unknown, string][] = []
    if (typeof node.$ref === "string") {
      const target = resolveRef(schema, node.$ref)
      if ("problem" in target) return `"$ref" "${node.$ref}" at ${where(at)} ${target.problem}`
      next.push([target.schema, target.pointer])
    }
    for (const key of ["additionalProperties", "not"]) if (has(node, key)) next.push([node[key], child(at, key)])
    // items is one schema, or (drafts 4 to 2019) a list of them.
    if (Array.isArray(node.items)) node.items.forEach((sub, index) => next.push([sub, child(at, "items", index)]))
    else if (has(node, "items")) next.push([node.items, child(at, "items")])
    for (const key of SCHEMA_MAPS) {
      for (const [name, sub] of Object.entries((node[key] ?? {}) as object)) next.push([sub, child(at, key, name)])
    }
    for (const key of SCHEMA_LISTS) {
      for (const [index, sub] of ((node[key] ?? []) as unknown[]).entries()) next.push([sub, child(at, key, index)])
    }
    for (const [sub, pointer] of next) {
      const problem = walk(sub, pointer)
      if (problem) return problem
    }
    return undefined
  }
  return walk(schema, "") ?? loopProblem(schema, seen)
}

function keywordProblem(node: Record<string, unknown>, at: string): string | undefined {
  if (has(node, "$ref") && typeof node.$ref !== "string") return `"$ref" at ${where(at)} must be a string, not ${describe(node.$ref)}`
  if (has(node, "type")) {
    const types = [node.type].flat()
    const bad = Array.isArray(node.type) && node.type.length === 0 ? [] : types.filter((type) => !TYPES.includes(type as string))
    if (bad.length > 0 || types.length === 0) {
      const got = bad.length > 0 ? JSON.stringify(bad[0]) : "an empty list"
      return `"type" at ${where(at)} must be one of ${TYPES.join(", ")} (or a list of them), not ${got}`
    }
  }
  if (has(node, "enum") && !Array.isArray(node.enum)) return `"enum" at ${where(at)} must be an array, not ${describe(node.enum)}`
  if (has(node, "required") && !(Array.isArray(node.required) && node.required.every((key) => typeof key === "string"))) {
    return `"required" at ${where(at)} must be an array of strings`
  }
  for (const key of NUMBERS) {
    if (has(node, key) && typeof node[key] !== "number") return `"${key}" at ${where(at)} must be a number, not ${describe(node[key])}`
  }
  for (const key of ["exclusiveMinimum", "exclusiveMaximum"]) {
    if (has(node, key) && typeof node[key] !== "number" && typeof node[key] !== "boolean") {
      return `"${key}" at ${where(at)} must be a number, not ${describe(node[key])}`
    }
  }
  if (has(node, "pattern")) {
    if (typeof node.pattern !== "string") return `"pattern" at ${where(at)} must be a string, not ${describe(node.pattern)}`
    const compiled = compilePattern(node.pattern)
    if (!(compiled instanceof RegExp)) return `"pattern" at ${where(at)} is not a valid regular expression: ${compiled.error}`
  }
  for (const key of SCHEMA_MAPS) {
    if (has(node, key) && !isObject(node[key])) return `"${key}" at ${where(at)} must be an object, not ${describe(node[key])}`
  }
  for (const pattern of Object.keys(isObject(node.patternProperties) ? node.patternProperties : {})) {
    const compiled = compilePattern(pattern)
    if (!(compiled instanceof RegExp)) {
      return `"patternProperties" key ${JSON.stringify(pattern)} at ${where(at)} is not a valid regular expression: ${compiled.error}`
    }
  }
  for (const key of SCHEMA_LISTS) {
    if (has(node, key) && !(Array.isArray(node[key]) && (node[key] as unknown[]).length > 0)) {
      return `"${key}" at ${where(at)} must be a non-empty array of schemas`
    }
  }
  return undefined
}

/**
 * A $ref that comes back to where it started without going into the value ($ref, allOf, anyOf,
 * oneOf, not stay on the same value) would never end; the validator cuts it, the user is told.
 */
function loopProblem(root: Schema, seen: Map<object, string>): string | undefined {
  const state = new Map<object, "open" | "done">()
  const visit = (node: Record<string, unknown>): string | undefined => {
    state.set(node, "open")
    const at = seen.get(node) ?? ""
    const next: [unknown, string | undefined][] = []
    if (typeof node.$ref === "string") {
      const target = resolveRef(root, node.$ref)
      if ("schema" in target) next.push([target.schema, node.$ref])
    }
    for (const key of SCHEMA_LISTS) if (Array.isArray(node[key])) for (const sub of node[key] as unknown[]) next.push([sub, undefined])
    if (has(node, "not")) next.push([node.not, undefined])
    for (const [sub, ref] of next) {
      if (!isObject(sub) || state.get(sub) === "done") continue
      if (state.get(sub) === "open") {
        return ref === undefined
          ? `the schema at ${where(at)} contains itself`
          : `"$ref" "${ref}" at ${where(at)} leads back to itself without going into the value`
      }
      const problem = visit(sub)
      if (problem) return problem
    }
    state.set(node, "done")
    return undefined
  }
  for (const node of seen.keys()) {
    if (state.has(node)) continue
    const problem = visit(node as Record<string, unknown>)
    if (problem) return problem
  }
  return undefined
}
