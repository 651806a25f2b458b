import { afterEach, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { startFakeModel, type FakeServer } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

// A bad --json-schema file is refused when it is loaded: exit 2, one line naming the file and the
// problem, and not one model request spent.

const directory = temporaryDirectory("clanka-run-schema-")
let server: FakeServer
let env: Record<string, string>
afterEach(() => server.close())

/** A model that would finish at once with `{}`, if it were asked. */
async function serve(): Promise<void> {
  server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script: 'await taskComplete("{}")' }] }])
  env = { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5" }
}

function jsonError(text: string): string {
  try {
    JSON.parse(text)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error(`${text} is JSON`)
}

const cases: [name: string, file: string, problem: string][] = [
  ["null.json", "null", "the schema must be a JSON object or true/false, not null"],
  ["array.json", "[]", "the schema must be a JSON object or true/false, not an array"],
  ["string.json", '"str"', "the schema must be a JSON object or true/false, not a string"],
  ["number.json", "42", "the schema must be a JSON object or true/false, not a number"],
  ["broken.json", "{", `not JSON: ${jsonError("{")}`],
  [
    "pattern.json",
    JSON.stringify({ type: "object", properties: { ok: { type: "string", pattern: "(unclosed" } } }),
    '"pattern" at /properties/ok is not a valid regular expression: missing )',
  ],
  [
    "pattern-key.json",
    JSON.stringify({ patternProperties: { "[a-": { type: "string" } } }),
    '"patternProperties" key "[a-" at the top level is not a valid regular expression: missing terminating ] for character class',
  ],
  [
    "ref.json",
    JSON.stringify({ properties: { a: { $ref: "#/$defs/missing" } }, $defs: {} }),
    '"$ref" "#/$defs/missing" at /properties/a points nowhere',
  ],
  [
    "remote-ref.json",
    JSON.stringify({ $ref: "https://example.com/s.json" }),
    '"$ref" "https://example.com/s.json" at the top level is not supported: only references inside the file (starting with #) work',
  ],
  [
    "ref-target.json",
    JSON.stringify({ items: { $ref: "#/$defs/n" }, $defs: { n: 3 } }),
    '"$ref" "#/$defs/n" at /items points to a number, not to a schema',
  ],
  ["loop.json", JSON.stringify({ $ref: "#" }), '"$ref" "#" at the top level leads back to itself without going into the value'],
  [
    "loop2.json",
    JSON.stringify({ allOf: [{ $ref: "#/$defs/a" }], $defs: { a: { anyOf: [{ $ref: "#" }] } } }),
    '"$ref" "#" at /$defs/a/anyOf/0 leads back to itself without going into the value',
  ],
  [
    "sub-null.json",
    JSON.stringify({ properties: { "a/b": null } }),
    "the schema at /properties/a~1b must be a JSON object or true/false, not null",
  ],
  [
    "type.json",
    JSON.stringify({ type: "object", properties: { n: { type: "str" } } }),
    '"type" at /properties/n must be one of string, number, integer, boolean, object, array, null (or a list of them), not "str"',
  ],
  ["enum.json", JSON.stringify({ enum: "a" }), '"enum" at the top level must be an array, not a string'],
  ["required.json", JSON.stringify({ required: ["a", 1] }), '"required" at the top level must be an array of strings'],
  ["any-of.json", JSON.stringify({ anyOf: [] }), '"anyOf" at the top level must be a non-empty array of schemas'],
  ["bound.json", JSON.stringify({ maxLength: "3" }), '"maxLength" at the top level must be a number, not a string'],
  ["missing.json", "", "cannot read it: ENOENT"],
]

test("each bad schema file: exit 2, one line naming the file and the problem, no model request", async () => {
  await serve()
  for (const [name, text] of cases) if (name !== "missing.json") writeFileSync(join(directory, name), text)
  const results = await Promise.all(
    cases.map(async ([name]) => {
      const result = await clanka(["run", "-o", "text", "--json-schema", name, "-C", directory, "go"], { env, cwd: directory })
      return [name, result.code, result.stdout, result.stderr]
    }),
  )
  expect(results).toEqual(cases.map(([name, , problem]) => [name, 2, "", `clanka: --json-schema ${name}: ${problem}\n`]))
  expect(server.requests.length).toBe(0)
})

test("ndjson: the refusal is the AgentError line, exit code 2", async () => {
  await serve()
  writeFileSync(join(directory, "pattern.json"), cases.find(([name]) => name === "pattern.json")![1])
  const result = await clanka(["run", "--json", "--json-schema", "pattern.json", "go"], { env, cwd: directory })
  expect(result.code).toBe(2)
  expect(result.stdout).toBe(
    JSON.stringify({
      _tag: "AgentError",
      message: '--json-schema pattern.json: "pattern" at /properties/ok is not a valid regular expression: missing )',
      exitCode: 2,
    }) + "\n",
  )
  expect(server.requests.length).toBe(0)
})

test("a schema using refs, recursion, booleans and plain-regex patterns is accepted and the run goes on", async () => {
  await serve()
  const schema = {
    $defs: { node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } } } },
    type: "object",
    properties: { tree: { $ref: "#/$defs/node" }, phone: { type: "string", pattern: "^\\d{3}\\-\\d{4}$" }, any: true },
    patternProperties: { "^x-": { not: false } },
    additionalProperties: false,
  }
  writeFileSync(join(directory, "good.json"), JSON.stringify(schema))
  const result = await clanka(["run", "-o", "text", "--json-schema", "good.json", "go"], { env, cwd: directory })
  expect(result.code).toBe(0)
  expect(result.stdout).toBe("{}\n")
  expect(server.requests.length).toBe(1)
})
