import { expect, test } from "bun:test"
import { schemaProblem, validateJson } from "../../src/schema/validate.ts"

const schema = {
  type: "object",
  required: ["files", "count"],
  additionalProperties: false,
  properties: {
    files: { type: "array", items: { type: "string", minLength: 1 }, minItems: 1 },
    count: { type: "integer", minimum: 0 },
    kind: { enum: ["fix", "feature"] },
    owner: { $ref: "#/$defs/owner" },
  },
  $defs: { owner: { type: ["string", "null"], pattern: "^@" } },
}

test("a matching value has no errors", () => {
  expect(validateJson(schema, { files: ["a.ts"], count: 2, kind: "fix", owner: "@me" })).toEqual([])
  expect(validateJson(schema, { files: ["a.ts"], count: 0, owner: null })).toEqual([])
})

test("each problem is reported with its path", () => {
  expect(validateJson(schema, { files: [""], count: 1.5, kind: "chore", owner: "me", extra: 1 })).toEqual([
    "$.files[0]: shorter than 1 characters",
    "$.count: expected integer, got number",
    '$.kind: must be one of "fix", "feature"',
    "$.owner: does not match /^@/",
    '$: unexpected property "extra"',
  ])
  expect(validateJson(schema, [])).toEqual(["$: expected object, got array"])
  expect(validateJson(schema, { files: [] })).toEqual(['$: missing required property "count"', "$.files: fewer than 1 items"])
})

test("anyOf and oneOf", () => {
  const either = { anyOf: [{ type: "string" }, { type: "number" }] }
  expect(validateJson(either, 1)).toEqual([])
  expect(validateJson(either, true)).toEqual(["$: matches none of the allowed shapes (anyOf)"])
  expect(validateJson({ oneOf: [{ type: "number" }, { type: "integer" }] }, 3)).toEqual([
    "$: must match exactly one shape (oneOf), matches 2",
  ])
})

test("odd schema shapes never make the validator throw", () => {
  // Each of these used to throw (a TypeError, a SyntaxError from RegExp, or a stack overflow).
  const odd: [unknown, unknown][] = [
    [null, 1],
    [[], { a: 1 }],
    ["str", "x"],
    [{ properties: { a: null } }, { a: 1 }],
    [{ properties: 3 }, { a: 1 }],
    [{ items: null }, [1]],
    [{ enum: "a" }, "a"],
    [{ required: 5 }, {}],
    [{ allOf: {} }, 1],
    [{ anyOf: 3, oneOf: "x" }, 1],
    [{ pattern: "(" }, "x"],
    [{ $ref: "#" }, 1],
    [{ allOf: [{ $ref: "#/$defs/a" }], $defs: { a: { $ref: "#" } } }, 1],
  ]
  for (const [schema, value] of odd) expect(() => validateJson(schema, value)).not.toThrow()
  expect(validateJson({ properties: { a: null } }, { a: 1 })).toEqual([])
})

test("a $ref that cannot be followed is reported as an error, not thrown", () => {
  expect(validateJson({ properties: { a: { $ref: "#/$defs/nope" } } }, { a: 1 })).toEqual([
    '$.a: the schema\'s "$ref" "#/$defs/nope" points nowhere',
  ])
  expect(validateJson({ $ref: "other.json#/a" }, 1)).toEqual([
    '$: the schema\'s "$ref" "other.json#/a" is not supported: only references inside the file (starting with #) work',
  ])
})

test("a recursive schema still validates a nested value", () => {
  const tree = { type: "object", required: ["name"], properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#" } } } }
  expect(validateJson(tree, { name: "a", children: [{ name: "b", children: [{ name: "c" }] }] })).toEqual([])
  expect(validateJson(tree, { name: "a", children: [{ name: "b", children: [{ name: 3 }] }] })).toEqual([
    "$.children[0].children[0].name: expected string, got integer",
  ])
})

test("property names of Object.prototype are not mistaken for declared or present properties", () => {
  const schema = { type: "object", required: ["constructor"], additionalProperties: false, properties: { a: { type: "string" } } }
  expect(validateJson(schema, { toString: 1 })).toEqual(['$: missing required property "constructor"', '$: unexpected property "toString"'])
})

test("$ref follows JSON Pointer escapes: ~1, ~0 and percent-encoding", () => {
  const schema = { $defs: { "a/b": { type: "string" }, "c~d": { type: "number" }, "e f": { type: "boolean" } }, properties: {
    x: { $ref: "#/$defs/a~1b" }, y: { $ref: "#/$defs/c~0d" }, z: { $ref: "#/$defs/e%20f" } } }
  expect(validateJson(schema, { x: 1, y: "s", z: 0 })).toEqual([
    "$.x: expected string, got integer",
    "$.y: expected number, got string",
    "$.z: expected boolean, got integer",
  ])
})

test("bounds: draft 2020 numbers and draft 4 exclusive flags", () => {
  expect(validateJson({ exclusiveMinimum: 0, maximum: 10 }, 0)).toEqual(["$: not greater than 0"])
  expect(validateJson({ minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true }, 0)).toEqual(["$: not greater than 0"])
  expect(validateJson({ minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true }, 10)).toEqual(["$: not less than 10"])
  expect(validateJson({ minimum: 0, exclusiveMinimum: false }, 0)).toEqual([])
})

test("a pattern that needs plain (non-unicode) regex syntax still works", () => {
  expect(validateJson({ pattern: "^\\d{3}\\-\\d{4}$" }, "555-1234")).toEqual([])
  expect(validateJson({ pattern: "^\\d{3}\\-\\d{4}$" }, "5551234")).toEqual(["$: does not match /^\\d{3}\\-\\d{4}$/"])
})

test("patternProperties: matching keys follow their schema and are not additional", () => {
  const schema = {
    type: "object",
    properties: { name: { type: "string" } },
    patternProperties: { "^x-": { type: "number" }, "count$": { type: "integer" } },
    additionalProperties: false,
  }
  expect(validateJson(schema, { name: "a", "x-a": 1.5, "x-count": 2 })).toEqual([])
  expect(validateJson(schema, { name: "a", "x-a": "no", "x-count": 2.5, other: 1 })).toEqual([
    "$.x-a: expected number, got string",
    "$.x-count: expected integer, got number",
    '$: unexpected property "other"',
  ])
})

test("schemaProblem accepts the schemas people write, whatever the draft", () => {
  expect(schemaProblem(schema)).toBeUndefined()
  expect(schemaProblem(true)).toBeUndefined()
  expect(schemaProblem({})).toBeUndefined()
  expect(schemaProblem({ minimum: 0, exclusiveMinimum: true, items: [{ type: "string" }], definitions: { a: {} }, $ref: "#/definitions/a" })).toBeUndefined()
  expect(schemaProblem({ type: ["string", "null"], "x-note": { pattern: "(" }, if: { const: 1 } })).toBeUndefined()
})

test("schemaProblem checks what a $ref points to, even outside the keywords it walks", () => {
  expect(schemaProblem({ $ref: "#/x-shared/s", "x-shared": { s: { pattern: "[" } } })).toBe(
    '"pattern" at /x-shared/s is not a valid regular expression: missing terminating ] for character class',
  )
})

test("schemaProblem looks into tuple items next to other keywords", () => {
  expect(schemaProblem({ items: [{ type: "string" }, null], not: { type: "null" } })).toBe(
    "the schema at /items/1 must be a JSON object or true/false, not null",
  )
  expect(schemaProblem({ items: 3 })).toBe("the schema at /items must be a JSON object or true/false, not a number")
})
