import { afterEach, describe, expect, test } from "bun:test"
import { CancelledError } from "../../src/errors.ts"
import { ModelError } from "../../src/providers/model.ts"
import { resolveModel } from "../../src/providers/resolve.ts"
import { startFakeAnthropic } from "../support/fake-anthropic.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { afterExecute, collect, executeCallParts, failure } from "./collect.ts"

let server: FakeServer | undefined
afterEach(() => server?.close())

async function start(turns: FakeTurn[], spec = "anthropic/claude-haiku-4-5") {
  server = await startFakeAnthropic(turns)
  return resolveModel(spec, server.env)
}

const script = 'console.log(await ls("."))'
const toolTurn: FakeTurn = {
  blocks: [
    { type: "reasoning", text: ["Look ", "first."], signature: "sig-abc" },
    { type: "text", text: "Listing." },
    { type: "execute", script, id: "toolu_1", chunks: 3 },
  ],
  usage: { input: 120, output: 40, cacheRead: 3000, cacheWrite: 500 },
}

describe("anthropic provider", () => {
  test("streams reasoning, text and the execute call as parts, with usage", async () => {
    const model = await start([toolTurn])
    expect(await collect(model)).toEqual([
      { type: "reasoning-start" },
      { type: "reasoning-delta", delta: "Look " },
      { type: "reasoning-delta", delta: "first." },
      { type: "provider-data", data: { provider: "anthropic", signature: "sig-abc" } },
      { type: "reasoning-end" },
      { type: "text-start" },
      { type: "text-delta", delta: "Listing." },
      { type: "text-end" },
      ...executeCallParts("toolu_1", script, 3),
      {
        type: "finish",
        stop: "tool",
        usage: { inputTokens: 120, outputTokens: 40, cacheReadTokens: 3000, cacheWriteTokens: 500 },
      },
    ])
  })

  test("end_turn is stop end, max_tokens is stop length", async () => {
    const model = await start([{ blocks: [{ type: "text", text: "Done." }] }, { blocks: [], stop: "length" }])
    expect((await collect(model)).at(-1)).toMatchObject({ type: "finish", stop: "end" })
    expect((await collect(model)).at(-1)).toMatchObject({ type: "finish", stop: "length" })
  })

  test("sends the key, system prompt, tool and cache breakpoints; echoes signed thinking", async () => {
    const model = await start([toolTurn, { blocks: [{ type: "text", text: "Two files." }] }], "anthropic/claude-haiku-4-5:high")
    const first = await collect(model)
    await collect(model, afterExecute(first, "toolu_1", "a.txt\nb.txt\n"))
    const [one, two] = server!.requests
    expect(one!.headers.authorization).toBe("Bearer test-key")
    expect(one!.headers["anthropic-version"]).toBeString()
    expect(one!.body).toEqual({
      model: "claude-haiku-4-5",
      max_tokens: 64000,
      stream: true,
      system: [{ type: "text", text: "You are clanka.", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: [{ type: "text", text: "List the files.", cache_control: { type: "ephemeral" } }] },
      ],
      tools: [
        {
          name: "execute",
          description: "Run a JavaScript program; what it prints is returned.",
          input_schema: { type: "object", properties: { script: { type: "string" } }, required: ["script"] },
          cache_control: { type: "ephemeral" },
        },
      ],
      thinking: { type: "enabled", budget_tokens: 24000 },
    })
    expect(two!.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "List the files.", cache_control: { type: "ephemeral" } }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Look first.", signature: "sig-abc" },
          { type: "text", text: "Listing." },
          { type: "tool_use", id: "toolu_1", name: "execute", input: { script } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "a.txt\nb.txt\n", cache_control: { type: "ephemeral" } },
        ],
      },
    ])
    expect(two!.toolResults).toEqual(["a.txt\nb.txt\n"])
  })

  test("only the newest two user turns carry breakpoints; unsigned reasoning is not sent", async () => {
    const model = await start([{ blocks: [{ type: "text", text: "ok" }] }])
    const call = (id: string) => ({ type: "tool-call" as const, id, name: "execute", input: { script: "1" } })
    await collect(model, [
      { role: "user", content: "one" },
      { role: "assistant", content: [{ type: "reasoning", text: "from elsewhere" }, call("t1")] },
      { role: "tool", toolCallId: "t1", content: "out1" },
      { role: "assistant", content: [call("t2")] },
      { role: "tool", toolCallId: "t2", content: "out2" },
      { role: "user", content: "steer" },
    ])
    const marks = server!.requests[0]!.body.messages.map((m: any) =>
      m.content.map((b: any) => `${m.role}:${b.type}${b.cache_control ? "*" : ""}`),
    )
    expect(marks).toEqual([
      ["user:text"],
      ["assistant:tool_use"],
      ["user:tool_result*"],
      ["assistant:tool_use"],
      ["user:tool_result", "user:text*"],
    ])
  })

  test("newer models think adaptively with the effort", async () => {
    const model = await start([{ blocks: [] }], "anthropic/claude-opus-5:xhigh")
    await collect(model)
    const body = server!.requests[0]!.body
    expect(body.thinking).toEqual({ type: "adaptive" })
    expect(body.output_config).toEqual({ effort: "xhigh" })
    expect(body.max_tokens).toBe(32000)
  })

  test.each([
    [429, true, "Anthropic API error 429 (rate_limit_error): slow down"],
    [529, true, "Anthropic API error 529 (overloaded_error): slow down"],
    [500, true, "Anthropic API error 500 (api_error): slow down"],
    [400, false, "Anthropic API error 400 (invalid_request_error): slow down"],
    [401, false, "Anthropic API error 401 (authentication_error): slow down — check ANTHROPIC_API_KEY"],
    [403, false, "Anthropic API error 403 (permission_error): slow down — check ANTHROPIC_API_KEY"],
    [404, false, "Anthropic API error 404 (not_found_error): slow down"],
  ])("HTTP %d becomes a ModelError, retryable %p", async (status, retryable, message) => {
    const model = await start([{ error: { status, message: "slow down" } }])
    const error = await failure(collect(model))
    expect(error).toBeInstanceOf(ModelError)
    expect(error.message).toBe(message)
    expect((error as ModelError).retryable).toBe(retryable)
    expect((error as ModelError).status).toBe(status)
  })

  test("a dropped stream is a retryable error; an aborted one is cancelled", async () => {
    const model = await start([{ drop: { blocks: [{ type: "text", text: "par" }] } }, { stall: {} }])
    const dropped = (await failure(collect(model))) as ModelError
    expect(dropped).toBeInstanceOf(ModelError)
    expect(dropped.retryable).toBe(true)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 50)
    expect(await failure(collect(model, undefined, controller.signal))).toBeInstanceOf(CancelledError)
  })

  test("an unreachable server is a retryable connection error", async () => {
    const model = resolveModel("anthropic/claude-haiku-4-5", {
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    })
    const error = (await failure(collect(model))) as ModelError
    expect(error).toBeInstanceOf(ModelError)
    expect(error.retryable).toBe(true)
    expect(error.message).toBe("cannot reach the Anthropic API at http://127.0.0.1:9/v1/messages: connection refused")
  })
})
