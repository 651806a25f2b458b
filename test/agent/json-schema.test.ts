import { expect, test } from "bun:test"
import { validateJson } from "../../src/agent/json-schema.ts"

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
