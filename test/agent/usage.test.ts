// SPEC section 3: the numbers in Usage, AgentFinished and AgentStart.
import { afterEach, describe, expect, test } from "bun:test"
import { createAgent } from "../../src/agent/agent.ts"
import type { AgentEvent } from "../../src/agent/events.ts"
import { resolveModel } from "../../src/providers/resolve.ts"
import { fromSubagent, fakeProviders, type FakeRequest, type FakeTurn } from "../support/fake-model.ts"
import { rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

type Usage = Extract<AgentEvent, { _tag: "Usage" }>
type Finished = Extract<AgentEvent, { _tag: "AgentFinished" }>
const usages = (events: AgentEvent[]) => events.filter((event): event is Usage => event._tag === "Usage")
const finished = (events: AgentEvent[]) => events.at(-1) as Finished

describe.each(fakeProviders)("%s", (provider) => {
  test("contextTokens is the latest response's input + cache + output; the token counts add up over the run", async () => {
    current = await rig(provider, [
      { blocks: [{ type: "execute", script: "console.log(1)" }], usage: { input: 1000, output: 200, cacheRead: 300 } },
      { blocks: [{ type: "execute", script: 'taskComplete("ok")' }], usage: { input: 50, output: 10, cacheRead: 1500 } },
    ])
    const events = await current.run("go")
    const [first, second] = usages(events)
    expect(first).toMatchObject({ contextTokens: 1500, inputTokens: 1000, outputTokens: 200, cacheReadTokens: 300 })
    expect(second).toMatchObject({ contextTokens: 1560, inputTokens: 1050, outputTokens: 210, cacheReadTokens: 1800 })
    expect(finished(events).usage).toMatchObject({ contextTokens: 1560, inputTokens: 1050, outputTokens: 210, cacheReadTokens: 1800 })
  })
})

test("costUsd is exact for priced models, and the parent's totals include its sub-agent's share", async () => {
  // Parent on claude-sonnet-4-5 ($3 in, $15 out, $0.30 cache read, $3.75 cache write per million),
  // sub-agent on claude-haiku-4-5 ($1 in, $5 out).
  const turn = (request: FakeRequest): FakeTurn => {
    if (fromSubagent(request))
      return { blocks: [{ type: "execute", script: 'taskComplete("sub done")' }], usage: { input: 500, output: 50 } }
    if (request.toolResults.length === 0)
      return {
        blocks: [{ type: "execute", script: 'console.log(await delegate("count"))' }],
        usage: { input: 1000, output: 100, cacheRead: 2000, cacheWrite: 400 },
      }
    return { blocks: [{ type: "execute", script: 'taskComplete("ok")' }], usage: { input: 10, output: 5 } }
  }
  current = await rig("anthropic", [turn, turn, turn], { subagentModelId: "claude-haiku-4-5" })
  const events = await current.run("go")
  // 1000×3 + 100×15 + 2000×0.3 + 400×3.75 = 6600 millionths of a dollar.
  expect(usages(events)[0]!.costUsd).toBe(0.0066)
  // The sub-agent's own Usage: 500×1 + 50×5 = 750.
  const sub = events.find((event) => event._tag === "SubagentPart" && event.part._tag === "Usage") as { part: Usage }
  expect(sub.part).toMatchObject({ costUsd: 0.00075, inputTokens: 500, outputTokens: 50, contextWindow: 200_000 })
  // 6600 + 750 + (10×3 + 5×15 = 105).
  expect(usages(events)[1]!.costUsd).toBe(0.007455)
  expect(finished(events).usage).toEqual({
    contextTokens: 15,
    contextWindow: 200_000,
    inputTokens: 1510,
    outputTokens: 155,
    cacheReadTokens: 2000,
    cacheWriteTokens: 400,
    costUsd: 0.007455,
  })
})

test("a model without a price costs null", async () => {
  current = await rig("anthropic", [{ blocks: [{ type: "execute", script: 'taskComplete("ok")' }] }], { modelId: "claude-unpriced-9" })
  const events = await current.run("go")
  expect(usages(events)[0]).toMatchObject({ costUsd: null, contextWindow: null })
  expect(finished(events).usage.costUsd).toBeNull()
})

test("durationMs: Usage is the response's wall time, AgentFinished the run's", async () => {
  const delayMs = 40
  current = await rig("anthropic", [
    { blocks: [{ type: "execute", script: "console.log(1)" }], delayMs },
    { blocks: [{ type: "execute", script: 'taskComplete("ok")' }], delayMs },
  ])
  const started = performance.now()
  const events = await current.run("go")
  const elapsed = performance.now() - started
  // Each response streams at least message_start, ping, a block start/delta/stop, message_delta
  // and message_stop, each after a wait of delayMs.
  const [first, second] = usages(events)
  expect(first!.durationMs).toBeGreaterThanOrEqual(7 * delayMs)
  expect(second!.durationMs).toBeGreaterThanOrEqual(7 * delayMs)
  expect(finished(events).durationMs).toBeGreaterThanOrEqual(first!.durationMs + second!.durationMs)
  expect(finished(events).durationMs).toBeLessThanOrEqual(Math.ceil(elapsed))
})

test("sessionId is a UUID, the same for every prompt of one conversation, different for another agent", async () => {
  current = await rig("anthropic", [{ blocks: [{ type: "text", text: "one" }] }, { blocks: [{ type: "text", text: "two" }] }], {
    conversation: true,
  })
  const starts = [...(await current.run("first")), ...(await current.run("second"))].filter((event) => event._tag === "AgentStart")
  expect(starts.length).toBe(2)
  const [a, b] = starts as Extract<AgentEvent, { _tag: "AgentStart" }>[]
  expect(a!.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  expect(b!.sessionId).toBe(a!.sessionId)
  expect(current.agent.sessionId).toBe(a!.sessionId)
  const other = createAgent({ executor: current.executor, model: resolveModel("anthropic/claude-sonnet-4-5", current.server.env) })
  expect(other.sessionId).not.toBe(a!.sessionId)
})

describe.each(["anthropic", "openai"] as const)("%s: a response that reports no token usage on a priced model", (provider) => {
  const turns: FakeTurn[] = [
    { blocks: [{ type: "execute", script: "console.log(1)" }], usage: null },
    { blocks: [{ type: "execute", script: 'taskComplete("ok")' }] },
  ]

  test("makes the run's cost unknown (null), never $0", async () => {
    current = await rig(provider, turns)
    const events = await current.run("go")
    expect(usages(events).map((usage) => usage.costUsd)).toEqual([null, null])
    expect(finished(events)).toMatchObject({ _tag: "AgentFinished", summary: "ok" })
    expect(finished(events).usage.costUsd).toBeNull()
  })

  test("under --max-budget-usd ends the run after its script: the budget cannot be enforced", async () => {
    current = await rig(provider, turns, { maxBudgetUsd: 5 })
    const events = await current.run("go")
    const model = provider === "anthropic" ? "anthropic/claude-sonnet-4-5" : "openai/gpt-5"
    expect(events.at(-1)).toEqual({
      _tag: "AgentError",
      exitCode: 1,
      message: `stopped: a response of ${model} reported no token usage, so the run's cost is unknown and --max-budget-usd cannot be enforced`,
    })
    expect(current.server.requests).toHaveLength(1)
  })
})
