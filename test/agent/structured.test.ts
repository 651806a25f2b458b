import { afterEach, expect, test } from "bun:test"
import type { FakeTurn } from "../support/fake-model.ts"
import { brief, rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

const schema = {
  type: "object",
  required: ["files"],
  additionalProperties: false,
  properties: { files: { type: "array", items: { type: "string" } } },
}

const complete = (value: unknown): FakeTurn => ({
  blocks: [{ type: "execute", script: `await taskComplete(${JSON.stringify(JSON.stringify(value))})` }],
})

test("a result that fails the schema is sent back with the errors; a valid one gives StructuredOutput before AgentFinished", async () => {
  current = await rig("anthropic", [complete({ file: "a.ts" }), complete({ files: ["a.ts", "b.ts"] })], { jsonSchema: schema })
  const lines = (await current.run("list files")).map(brief)
  expect(lines.slice(-2)).toEqual([
    'StructuredOutput {"files":["a.ts","b.ts"]}',
    'AgentFinished "{\\"files\\":[\\"a.ts\\",\\"b.ts\\"]}" turns=2',
  ])
  expect(current.server.requests[0]!.system).toContain(JSON.stringify(schema))
  expect(current.server.requests[1]!.toolResults).toEqual([
    '(no output)\ntaskComplete was rejected: the output does not match the JSON Schema:\n$: missing required property "files"\n$: unexpected property "file"\nFix it and call taskComplete again.',
  ])
})

test("three results that never match end the run with exit 1", async () => {
  current = await rig("anthropic", [complete({ files: "a" }), complete([]), { blocks: [{ type: "execute", script: 'taskComplete("not json")' }] }], {
    jsonSchema: schema,
  })
  const events = await current.run("list files")
  expect(events.some((event) => event._tag === "StructuredOutput")).toBe(false)
  expect(events.at(-1)).toEqual({
    _tag: "AgentError",
    message: `the result did not match --json-schema after 3 tries: not valid JSON: ${jsonError("not json")}`,
    exitCode: 1,
  })
  expect(current.server.requests.length).toBe(3)
})

function jsonError(text: string): string {
  try {
    JSON.parse(text)
  } catch (error) {
    return (error as Error).message
  }
  return ""
}
