// A response cut short by steering still counts the tokens the provider reported before the cut.
import { afterEach, describe, expect, test } from "bun:test"
import type { AgentEvent } from "../../src/agent/events.ts"
import type { FakeProvider } from "../support/fake-model.ts"
import { rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

const received: Record<FakeProvider, { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }> = {
  // message_start carries the input and cache counts (and output 1) before any block.
  anthropic: { inputTokens: 1200, outputTokens: 1, cacheReadTokens: 50, cacheWriteTokens: 7 },
  // The Responses API reports usage only in its final event, after the cut: nothing to keep.
  openai: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  // Chat Completions servers end a text-only choice with the usage chunk before the text ends.
  "openai-compatible": { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 50, cacheWriteTokens: 0 },
}

describe.each(Object.keys(received) as FakeProvider[])("%s", (provider) => {
  test("a turn cut by steering keeps the usage received before the cut", async () => {
    current = await rig(
      provider,
      [
        { blocks: [{ type: "text", text: ["a", "b", "c", "d"] }], delayMs: 15, usage: { input: 1200, output: 300, cacheRead: 50, cacheWrite: 7 } },
        { blocks: [{ type: "text", text: "ok" }], usage: { input: 1, output: 1 } },
      ],
      { conversation: true },
    )
    const events: AgentEvent[] = []
    for await (const event of current.agent.send("start")) {
      events.push(event)
      if (event._tag === "ReasoningDelta" && event.delta === "a") current.agent.steer("use tabs")
    }
    expect(current.server.requests[1]!.lastUserText).toBe("use tabs")
    const usage = events.filter((event) => event._tag === "Usage")
    expect(usage.length).toBe(2)
    expect(usage[0]).toMatchObject(received[provider])
  })
})

test("a response dropped by the turn timeout still counts the tokens it reported: they were billed", async () => {
  current = await rig(
    "anthropic",
    [{ stall: { blocks: [{ type: "text", text: "hal" }] } }, { blocks: [{ type: "execute", script: 'await taskComplete("ok")' }], usage: { input: 100 } }],
    // Long enough for the retried answer to start on a loaded machine.
    { turnTimeoutMs: 1000 },
  )
  const events = await current.run("go")
  expect(events.filter((event) => event._tag === "ErrorRetry")).toHaveLength(1)
  const finished = events.at(-1)!
  expect(finished._tag).toBe("AgentFinished")
  // The stalled response's message_start reported 10 input tokens (the fake's default).
  expect(finished._tag === "AgentFinished" && finished.usage.inputTokens).toBe(110)
})
