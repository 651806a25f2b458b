// A tool call whose input is not a JSON object (cut off by the output limit, invalid, an array):
// nothing runs, the model is told, and the call it made is echoed in a form every provider takes.
import { afterEach, describe, expect, test } from "bun:test"
import { fakeProviders, sse, type FakeProvider, type FakeRequest } from "../support/fake-model.ts"
import { rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

/** The inputs of the tool calls echoed in a request's history, as the wire carries them. */
function echoedInputs(provider: FakeProvider, request: FakeRequest): unknown[] {
  const body = request.body
  if (provider === "anthropic")
    return body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content.filter((c: any) => c.type === "tool_use").map((c: any) => c.input) : []))
  if (provider === "openai") return body.input.filter((i: any) => i.type === "function_call").map((i: any) => JSON.parse(i.arguments))
  return body.messages.flatMap((m: any) => (m.tool_calls ?? []).map((c: any) => JSON.parse(c.function.arguments)))
}

describe.each(fakeProviders)("%s", (provider) => {
  test.each([
    ["cut off", '{"script": "console.log('],
    ["an array", "[1, 2]"],
    ["a string", '"console.log(1)"'],
  ])("an execute input that is %s runs nothing and is echoed as an object", async (_, json) => {
    current = await rig(provider, [
      { blocks: [{ type: "tool-call", name: "execute", json }], stop: "length" },
      { blocks: [{ type: "execute", script: 'taskComplete("ok")' }] },
    ])
    const events = await current.run("go")
    expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "ok" })
    const outputs = events.filter((event) => event._tag === "ScriptOutput") as { output: string }[]
    expect(outputs[0]!.output).toStartWith('error: execute takes {"script": "<JavaScript program>"} but got')
    // Anthropic refuses a tool_use whose input is not an object; Ollama a call whose arguments are not one.
    const echoed = echoedInputs(provider, current.server.requests[1]!)
    expect(echoed).toHaveLength(1)
    expect(echoed[0]).toEqual({})
  })
})

test("openai-compatible: tool-call deltas without an index (some servers omit it) are told apart by id", async () => {
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })
  const call = (id: string, script: string) => ({ tool_calls: [{ id, type: "function", function: { name: "execute", arguments: JSON.stringify({ script }) } }] })
  current = await rig("openai-compatible", [
    { raw: { body: chunk(call("a", 'console.log("one")')) + chunk(call("b", 'taskComplete("two")')) + chunk({}, "tool_calls") + sse("[DONE]") } },
  ])
  const events = await current.run("go")
  expect(events.filter((event) => event._tag === "ScriptOutput")).toEqual([
    { _tag: "ScriptOutput", output: "one\n" },
    { _tag: "ScriptOutput", output: "(no output)" },
  ])
  expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "two" })
})
