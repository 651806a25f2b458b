import { afterEach, describe, expect, test } from "bun:test"
import { CancelledError } from "../../src/errors.ts"
import { ModelError } from "../../src/providers/model.ts"
import { resolveModel } from "../../src/providers/resolve.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { startFakeOpenAI } from "../support/fake-openai.ts"
import { afterExecute, collect, executeCallParts, failure } from "./collect.ts"

let server: FakeServer | undefined
afterEach(() => server?.close())

async function start(turns: FakeTurn[], spec = "openai/gpt-5.2:high") {
  server = await startFakeOpenAI(turns)
  return resolveModel(spec, server.env)
}

const script = 'console.log(await ls("."))'
const json = JSON.stringify({ script })
const toolTurn: FakeTurn = {
  blocks: [
    { type: "reasoning", text: ["Look ", "first."], signature: "enc-abc" },
    { type: "text", text: "Listing." },
    { type: "execute", script, id: "call_1", chunks: 2 },
  ],
  usage: { input: 120, output: 40, cacheRead: 3000, cacheWrite: 0 },
}

describe("openai provider (Responses API)", () => {
  test("streams the reasoning summary, text and the execute call as parts, with usage", async () => {
    const model = await start([toolTurn])
    expect(await collect(model)).toEqual([
      { type: "reasoning-start" },
      { type: "reasoning-delta", delta: "Look " },
      { type: "reasoning-delta", delta: "first." },
      {
        type: "provider-data",
        data: { provider: "openai", id: "rs_0_0", encryptedContent: "enc-abc", summary: ["Look first."] },
      },
      { type: "reasoning-end" },
      { type: "text-start" },
      { type: "text-delta", delta: "Listing." },
      { type: "text-end" },
      ...executeCallParts("call_1", script, 2),
      {
        type: "finish",
        stop: "tool",
        // 3120 input tokens on the wire, 3000 of them cached.
        usage: { inputTokens: 120, outputTokens: 40, cacheReadTokens: 3000, cacheWriteTokens: 0 },
      },
    ])
  })

  test("a text answer is stop end; max_output_tokens is stop length", async () => {
    const model = await start([{ blocks: [{ type: "text", text: "Done." }] }, { blocks: [], stop: "length" }])
    expect((await collect(model)).at(-1)).toMatchObject({ type: "finish", stop: "end" })
    expect((await collect(model)).at(-1)).toMatchObject({ type: "finish", stop: "length" })
  })

  test("sends instructions, the tool, effort and summaries, store false; echoes encrypted reasoning", async () => {
    const model = await start([toolTurn, { blocks: [{ type: "text", text: "Two files." }] }])
    const first = await collect(model)
    await collect(model, afterExecute(first, "call_1", "a.txt\nb.txt\n"))
    const [one, two] = server!.requests
    expect(one!.headers.authorization).toBe("Bearer test-key")
    expect(one!.body).toEqual({
      model: "gpt-5.2",
      stream: true,
      store: false,
      instructions: "You are clanka.",
      input: [{ role: "user", content: "List the files." }],
      tools: [
        {
          type: "function",
          name: "execute",
          description: "Run a JavaScript program; what it prints is returned.",
          parameters: { type: "object", properties: { script: { type: "string" } }, required: ["script"] },
          strict: false,
        },
      ],
      include: ["reasoning.encrypted_content"],
      reasoning: { summary: "auto", effort: "high" },
    })
    expect(two!.body.input).toEqual([
      { role: "user", content: "List the files." },
      {
        type: "reasoning",
        id: "rs_0_0",
        encrypted_content: "enc-abc",
        summary: [{ type: "summary_text", text: "Look first." }],
      },
      { role: "assistant", content: "Listing." },
      { type: "function_call", call_id: "call_1", name: "execute", arguments: json },
      { type: "function_call_output", call_id: "call_1", output: "a.txt\nb.txt\n" },
    ])
    expect(two!.toolResults).toEqual(["a.txt\nb.txt\n"])
  })

  test("a model without reasoning gets no reasoning settings", async () => {
    const model = await start([{ blocks: [] }], "openai/gpt-4.1")
    await collect(model)
    expect(server!.requests[0]!.body.reasoning).toBeUndefined()
    expect(server!.requests[0]!.body.include).toBeUndefined()
  })

  test.each([
    [429, true, "OpenAI API error 429 (rate_limit_exceeded): slow down"],
    [500, true, "OpenAI API error 500 (server_error): slow down"],
    [503, true, "OpenAI API error 503 (server_error): slow down"],
    [400, false, "OpenAI API error 400 (invalid_request_error): slow down"],
    [401, false, "OpenAI API error 401 (invalid_api_key): slow down — check OPENAI_API_KEY"],
    [403, false, "OpenAI API error 403 (unsupported_country_region_territory): slow down — check OPENAI_API_KEY"],
    [404, false, "OpenAI API error 404 (model_not_found): slow down"],
  ])("HTTP %d becomes a ModelError, retryable %p", async (status, retryable, message) => {
    const model = await start([{ error: { status, message: "slow down" } }])
    const error = (await failure(collect(model))) as ModelError
    expect(error).toBeInstanceOf(ModelError)
    expect(error.message).toBe(message)
    expect(error.retryable).toBe(retryable)
    expect(error.status).toBe(status)
  })

  test("429 for an exhausted quota is not retried", async () => {
    const body = { error: { message: "You exceeded your current quota", type: "insufficient_quota", code: "insufficient_quota" } }
    const model = await start([{ error: { status: 429, body } }])
    const error = (await failure(collect(model))) as ModelError
    expect(error.retryable).toBe(false)
  })

  test("a stream cut before response.completed is retryable; an aborted one is cancelled", async () => {
    const model = await start([{ drop: { blocks: [{ type: "text", text: "par" }] } }, { stall: {} }])
    const dropped = (await failure(collect(model))) as ModelError
    expect(dropped.message).toBe("OpenAI API stream ended before the response was complete")
    expect(dropped.retryable).toBe(true)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    expect(await failure(collect(model, undefined, controller.signal))).toBeInstanceOf(CancelledError)
  })

  test("an unreachable server is a retryable connection error naming the URL tried", async () => {
    const model = resolveModel("openai/gpt-5", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" })
    const error = (await failure(collect(model))) as ModelError
    expect(error).toBeInstanceOf(ModelError)
    expect(error.retryable).toBe(true)
    expect(error.message).toBe("cannot reach the OpenAI API at http://127.0.0.1:9/v1/responses: connection refused")
  })
})
