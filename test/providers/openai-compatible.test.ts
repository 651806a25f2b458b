import { afterEach, describe, expect, test } from "bun:test"
import { ModelError } from "../../src/providers/model.ts"
import { resolveModel } from "../../src/providers/resolve.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { startFakeChatCompletions } from "../support/fake-openai.ts"
import { afterExecute, collect, executeCallParts, failure } from "./collect.ts"

let server: FakeServer | undefined
afterEach(() => server?.close())

async function start(turns: FakeTurn[], env: Record<string, string> = {}) {
  server = await startFakeChatCompletions(turns)
  return resolveModel("openai-compatible/qwen3:32b", { ...server.env, ...env })
}

const script = 'console.log(await ls("."))'
const json = JSON.stringify({ script })
const toolTurn: FakeTurn = {
  blocks: [
    { type: "reasoning", text: ["Look ", "first."] },
    { type: "text", text: "Listing." },
    { type: "execute", script, id: "call_1", chunks: 2 },
  ],
  usage: { input: 120, output: 40, cacheRead: 64 },
}

describe("openai-compatible provider (Chat Completions)", () => {
  test("streams reasoning_content, text and accumulated tool call deltas as parts, with usage", async () => {
    const model = await start([toolTurn])
    expect(await collect(model)).toEqual([
      { type: "reasoning-start" },
      { type: "reasoning-delta", delta: "Look " },
      { type: "reasoning-delta", delta: "first." },
      { type: "reasoning-end" },
      { type: "text-start" },
      { type: "text-delta", delta: "Listing." },
      { type: "text-end" },
      ...executeCallParts("call_1", script, 2),
      {
        type: "finish",
        stop: "tool",
        usage: { inputTokens: 120, outputTokens: 40, cacheReadTokens: 64, cacheWriteTokens: 0 },
      },
    ])
  })

  test("sends the system message, tool, include_usage and the transcript; no key needed", async () => {
    const model = await start([toolTurn, { blocks: [{ type: "text", text: "Two files." }] }], { OPENAI_API_KEY: "" })
    const first = await collect(model)
    const second = await collect(model, afterExecute(first, "call_1", "a.txt\nb.txt\n"))
    expect(second.at(-1)).toMatchObject({ type: "finish", stop: "end" })
    const [one, two] = server!.requests
    expect(one!.headers.authorization).toBe("Bearer none")
    expect(one!.body).toEqual({
      model: "qwen3:32b",
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: "system", content: "You are clanka." },
        { role: "user", content: "List the files." },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "execute",
            description: "Run a JavaScript program; what it prints is returned.",
            parameters: { type: "object", properties: { script: { type: "string" } }, required: ["script"] },
          },
        },
      ],
    })
    expect(two!.body.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: "Listing.",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "execute", arguments: json } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "a.txt\nb.txt\n" },
    ])
    expect(two!.toolResults).toEqual(["a.txt\nb.txt\n"])
  })

  test.each([
    [429, true],
    [500, true],
    [400, false],
    [403, false],
    [404, false],
  ])("HTTP %d becomes a ModelError, retryable %p", async (status, retryable) => {
    const model = await start([{ error: { status, message: "nope" } }])
    const error = (await failure(collect(model))) as ModelError
    expect(error).toBeInstanceOf(ModelError)
    expect(error.retryable).toBe(retryable)
  })

  test("401 names the key variable and the server", async () => {
    const model = await start([{ error: { status: 401, message: "bad key" } }])
    const error = (await failure(collect(model))) as ModelError
    expect(error.message).toBe(
      `OpenAI-compatible API at ${server!.url} error 401 (invalid_api_key): bad key — check OPENAI_API_KEY`,
    )
    expect(error.retryable).toBe(false)
  })

  test("a stream without a finish reason is a retryable error", async () => {
    const model = await start([{ drop: { blocks: [{ type: "text", text: "par" }] } }])
    const error = (await failure(collect(model))) as ModelError
    expect(error.retryable).toBe(true)
  })

  test("an unreachable server is a retryable connection error naming the URL tried", async () => {
    const model = resolveModel("openai-compatible/qwen3", { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" })
    const error = (await failure(collect(model))) as ModelError
    expect(error.retryable).toBe(true)
    expect(error.message).toBe("cannot reach the OpenAI-compatible server at http://127.0.0.1:9/v1/chat/completions: connection refused")
  })
})
