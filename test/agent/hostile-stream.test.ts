// A provider whose stream breaks the protocol: the run neither runs what a broken response asked
// for nor sends the provider a history it must refuse.
import { afterEach, describe, expect, test } from "bun:test"
import { fakeProviders, sse, type FakeProvider } from "../support/fake-model.ts"
import { rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

describe.each(fakeProviders)("%s", (provider) => {
  test("a response with two tool calls sharing one id runs neither script; the turn is retried", async () => {
    current = await rig(provider, [
      { blocks: [{ type: "execute", script: 'console.log("one")', id: "call_1" }, { type: "execute", script: 'console.log("two")', id: "call_1" }] },
      { blocks: [{ type: "execute", script: 'taskComplete("ok")' }] },
    ])
    const events = await current.run("go")
    expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "ok" })
    expect(events.filter((event) => event._tag === "ScriptOutput").some((event: any) => /one|two/.test(event.output))).toBe(false)
    expect(events.find((event) => event._tag === "ErrorRetry")).toMatchObject({ error: { message: 'the response has two tool calls with the id "call_1"', retryable: true } })
    // The retried request holds no trace of the broken response.
    expect(current.server.requests).toHaveLength(2)
    expect(current.server.requests[1]!.toolResults).toEqual([])
  })
})

/** A malformed event, in each wire format: JSON that is not an object, then an event missing its body. */
const malformed: Record<FakeProvider, { notObject: string; missing: string; type: string }> = {
  anthropic: { notObject: "event: message_start\ndata: null\n\n", missing: sse({ type: "message_start" }, "message_start"), type: "message_start" },
  openai: { notObject: "event: response.created\ndata: [1]\n\n", missing: sse({ type: "response.output_item.added", output_index: 0 }, "response.output_item.added"), type: "response.output_item.added" },
  "openai-compatible": { notObject: "data: null\n\n", missing: sse({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, finish_reason: null }] }), type: "chat.completion.chunk" },
}

describe.each(fakeProviders)("%s: a malformed event is a broken response, retried with a message that names it", (provider) => {
  test.each(["notObject", "missing"] as const)("%s", async (kind) => {
    current = await rig(provider, [{ raw: { body: malformed[provider][kind] } }, { blocks: [{ type: "execute", script: 'taskComplete("ok")' }] }])
    const events = await current.run("go")
    expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "ok" })
    const api = provider === "anthropic" ? "Anthropic API" : provider === "openai" ? "OpenAI API" : `OpenAI-compatible API at ${current.server.url}`
    const message = kind === "notObject" ? `${api} sent an event that is not a JSON object` : `${api} sent a malformed "${malformed[provider].type}" event`
    expect(events.filter((event) => event._tag === "ErrorRetry")).toEqual([{ _tag: "ErrorRetry", error: { message, retryable: true } }])
  })
})

test("anthropic: a thinking block without a signature is shown but not echoed (the API refuses an unsigned one)", async () => {
  current = await rig(
    "anthropic",
    [
      { blocks: [{ type: "reasoning", text: "look first", signature: "" }, { type: "execute", script: 'console.log("one")' }] },
      { blocks: [{ type: "execute", script: 'taskComplete("ok")' }] },
    ],
    { modelId: "claude-sonnet-4-5:high" },
  )
  const events = await current.run("go")
  expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "ok" })
  expect(events.some((event) => event._tag === "ReasoningDelta" && event.delta === "look first")).toBe(true)
  const assistant = current.server.requests[1]!.body.messages.find((m: any) => m.role === "assistant")
  expect(assistant.content.map((c: any) => c.type)).toEqual(["tool_use"])
})

/** A response that stops (refusal) while an execute call's input is still streaming: the call never completes. */
const unfinishedCall: Record<"anthropic" | "openai", string> = {
  anthropic: [
    { type: "message_start", message: { id: "m", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "execute", input: {} } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"script": "console.log(1)' } },
    { type: "message_delta", delta: { stop_reason: "refusal" }, usage: { output_tokens: 3 } },
    { type: "message_stop" },
  ]
    .map((event) => sse(event, event.type))
    .join(""),
  openai: [
    { type: "response.output_item.added", output_index: 0, item: { type: "function_call", id: "fc_1", call_id: "call_1", name: "execute", arguments: "" } },
    { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 0, delta: '{"script": "console.log(1)' },
    { type: "response.incomplete", response: { id: "r", object: "response", status: "incomplete", output: [], incomplete_details: { reason: "content_filter" }, usage: { input_tokens: 5, output_tokens: 3 } } },
  ]
    .map((event) => sse(event, event.type))
    .join(""),
}

describe.each(["anthropic", "openai"] as const)("%s", (provider) => {
  test("a script whose call the response never completed (it stopped mid-call) gets its ScriptOutput, not run", async () => {
    current = await rig(provider, [{ raw: { body: unfinishedCall[provider] } }], { conversation: true })
    const events = await current.run("go")
    expect(events.map((event) => event._tag).filter((tag) => tag.startsWith("Script") || tag.startsWith("Agent"))).toEqual([
      "AgentStart",
      "ScriptStart",
      "ScriptDelta",
      "ScriptEnd",
      "ScriptOutput",
      "AgentFinished",
    ])
    expect(events.find((event) => event._tag === "ScriptOutput")).toEqual({
      _tag: "ScriptOutput",
      output: "(not run: the response ended before the script was complete)",
      failed: true,
    })
  })
})

/**
 * Events without content, without end: an event type clanka does not know (the Anthropic SDK drops
 * `ping` itself), an empty Chat Completions chunk.
 */
function keepAlive(provider: "anthropic" | "openai-compatible"): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const first =
    provider === "anthropic"
      ? sse({ type: "message_start", message: { id: "m", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } }, "message_start")
      : sse({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "hal" }, finish_reason: null }] })
  const ping = provider === "anthropic" ? sse({ type: "heartbeat" }, "heartbeat") : sse({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [] })
  let timer: ReturnType<typeof setInterval> | undefined
  return new ReadableStream({
    start(controller) {
      controller.enqueue(encoder.encode(first))
      timer = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(ping))
        } catch {
          clearInterval(timer)
        }
      }, 20)
    },
    cancel() {
      clearInterval(timer)
    },
  })
}

describe.each(["anthropic", "openai-compatible"] as const)("%s", (provider) => {
  test("keep-alive events without content end the turn at 3 × the turn timeout", async () => {
    current = await rig(provider, [{ blocks: [{ type: "text", text: "warm" }] }, { raw: { body: keepAlive(provider) } }], {
      conversation: true,
      // 1 s, as turn-timeout tests use: a loaded machine's first chunk still arrives within it.
      turnTimeoutMs: 1_000,
      retry: { maxRetries: 0, baseMs: 1, maxMs: 1 },
    })
    await current.run("load the SDK first") // so the timed turn measures only the stream
    const started = performance.now()
    const events = await current.run("go")
    expect(events.at(-1)).toEqual({
      _tag: "AgentError",
      exitCode: 1,
      message: "the model sent only keep-alive events for 3 s (3 × the turn timeout) (gave up after 1 attempts)",
    })
    expect(performance.now() - started).toBeLessThan(8_000)
  })
})
