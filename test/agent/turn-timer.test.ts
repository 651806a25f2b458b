// SPEC section 7: the turn timeout is an inactivity timer reset by every streamed chunk.
import { afterEach, describe, expect, test } from "bun:test"
import { fakeProviders } from "../support/fake-model.ts"
import { brief, rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

describe.each(fakeProviders)("%s", (provider) => {
  test("SSE events that carry no text (pings, block and message boundaries) keep a slow turn alive", async () => {
    // 120 ms between SSE events; 3 events (≥ 360 ms) between the parts clanka maps them to in
    // every wire format, beyond the 330 ms timeout.
    current = await rig(
      provider,
      [{ blocks: [{ type: "text", text: "warm" }] }, { blocks: [{ type: "text", text: "slow but steady" }], delayMs: 120 }],
      { conversation: true, turnTimeoutMs: 330 },
    )
    await current.run("load the SDK first") // so the timed turn measures only the stream
    const lines = (await current.run("go")).map(brief)
    expect(lines.filter((line) => line.startsWith("ErrorRetry") || line.startsWith("Agent"))).toEqual([
      "AgentStart",
      'AgentFinished "slow but steady" turns=1',
    ])
    expect(current.server.requests.length).toBe(2)
  })
})
