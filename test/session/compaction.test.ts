// Item 4 of sessions: compaction before a request that would pass --compact-at, and after a
// provider's "prompt is too long"; the Compaction event; the summary request has no tools.
import { afterEach, expect, test } from "bun:test"
import type { FakeRequest, FakeServer, FakeTurn } from "../support/fake-model.ts"
import { clanka, events, finish, serve, testbed, transcript } from "./helpers.ts"

const { workspace, freshHome } = testbed("clanka-compact-")
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

/** The size of a request as this fake provider counts it: a token per four characters of the body. */
const size = (request: FakeRequest) =>
  Math.ceil(JSON.stringify({ system: request.body.system, messages: request.body.messages, tools: request.body.tools }).length / 4)
const isSummary = (request: FakeRequest) => request.body.tools === undefined

/** Reports usage as the provider would: the request's size as input, the reply's size as output. */
function sized(request: FakeRequest, reply: { blocks: any[] }): FakeTurn {
  return { ...reply, usage: { input: size(request), output: Math.ceil(JSON.stringify(reply.blocks).length / 4) } }
}

test("a 40-turn session with a small --compact-at: every request stays under it and the task completes", async () => {
  const home = freshHome()
  let mainTurns = 0
  const turn = (request: FakeRequest): FakeTurn => {
    if (isSummary(request)) return sized(request, { blocks: [{ type: "text", text: `Handoff: turns so far each printed a line of x; continue counting.` }] })
    mainTurns++
    if (mainTurns === 40) return sized(request, finish("counted to 40") as any)
    return sized(request, { blocks: [{ type: "execute", script: `console.log("${"x".repeat(1200)} ${mainTurns}")` }] })
  }
  const served = await serve(Array.from({ length: 80 }, () => turn), home)
  server = served.server
  const result = await clanka(["run", "--json", "--compact-at", "6000", "-C", workspace, "count to forty, one turn at a time"], { env: served.env, timeoutMs: 60_000 })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const printed = events(result)
  expect(printed.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "counted to 40", turns: 40 })
  const compactions = printed.filter((event) => event._tag === "Compaction")
  expect(compactions.length).toBeGreaterThanOrEqual(3)
  for (const compaction of compactions) {
    expect(compaction.beforeTokens).toBeGreaterThan(6000)
    expect(compaction.afterTokens).toBeLessThan(compaction.beforeTokens / 2)
    expect(compaction.durationMs).toBeNumber()
  }
  const sizes = server.requests.map(size)
  expect(Math.max(...sizes)).toBeLessThanOrEqual(6000)
  expect(server.requests.filter(isSummary)).toHaveLength(compactions.length)
  // After a compaction: the first request verbatim, then the summary, then the newest turns.
  const after = server.requests.find((request, i) => i > 0 && isSummary(server!.requests[i - 1]!))!
  const first = after.body.messages[0]
  expect(first.role).toBe("user")
  expect(first.content.map((block: any) => block.text)).toEqual([
    "count to forty, one turn at a time",
    "[Summary of the earlier part of this session, written when its history was compacted]\n\nHandoff: turns so far each printed a line of x; continue counting.",
  ])
  // The summary request: no tools, the history as text.
  const summary = server.requests.find(isSummary)!
  expect(summary.body.messages).toHaveLength(1)
  expect(summary.body.messages[0].content[0].text).toContain("[assistant ran a script]")
  // The transcript keeps every event; resuming starts from the compacted history.
  const lines = transcript(home, printed[0].sessionId)
  expect(lines.filter((line) => line.type === "compaction")).toHaveLength(compactions.length)
  expect(lines.filter((line) => line.type === "event" && line.event._tag === "ScriptOutput")).toHaveLength(40)
})

test('a provider\'s "prompt is too long" compacts and retries once instead of ending the run', async () => {
  const home = freshHome()
  const tooLong: FakeTurn = { error: { status: 400, message: "prompt is too long: 212000 tokens > 200000 maximum" } }
  const step = (i: number): FakeTurn => ({ blocks: [{ type: "execute", script: `console.log("step ${i}")` }] })
  const summary: FakeTurn = { blocks: [{ type: "text", text: "Did steps 1 and 2." }] }
  const served = await serve([step(1), step(2), tooLong, summary, finish("done after compaction"), step(3), tooLong, summary, tooLong], home)
  server = served.server
  const result = await clanka(["run", "--json", "-C", workspace, "go"], { env: served.env })
  expect(result.code).toBe(0)
  const printed = events(result)
  expect(printed.filter((event) => event._tag === "Compaction")).toHaveLength(1)
  expect(printed.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "done after compaction" })
  expect(server.requests[3]!.body.tools).toBeUndefined()
  expect(server.requests[4]!.body.messages[0].content[1].text).toContain("Did steps 1 and 2.")

  // Too long again right after compacting: the run ends with the provider's error.
  const again = await clanka(["run", "--json", "--resume", printed[0].sessionId, "more"], { env: served.env })
  expect(again.code).toBe(1)
  expect(events(again).at(-1)).toMatchObject({ _tag: "AgentError", message: expect.stringContaining("prompt is too long") })
})

test("--compact-at takes a positive whole number", async () => {
  const bad = await clanka(["run", "--compact-at", "lots", "-C", workspace, "x"], { env: { CLANKA_MODEL: "anthropic/claude-sonnet-4-5", ANTHROPIC_API_KEY: "k" } })
  expect(bad).toMatchObject({ code: 2, stderr: 'clanka: --compact-at takes a positive whole number, got "lots"\n' })
})

test("a model that writes a summary longer than the history it replaces: the summary is cut, and compaction still brings requests under --compact-at", async () => {
  const home = freshHome()
  let mainTurns = 0
  const turn = (request: FakeRequest): FakeTurn => {
    // About 17,000 tokens of summary, for a threshold of 6,000.
    if (isSummary(request)) return sized(request, { blocks: [{ type: "text", text: `Handoff begins. ${"summary words ".repeat(5000)}Next step: go on counting.` }] })
    mainTurns++
    if (mainTurns === 16) return sized(request, finish("counted to 16") as any)
    return sized(request, { blocks: [{ type: "execute", script: `console.log("${"x".repeat(1200)} ${mainTurns}")` }] })
  }
  const served = await serve(Array.from({ length: 40 }, () => turn), home)
  server = served.server
  const result = await clanka(["run", "--json", "--compact-at", "6000", "-C", workspace, "count to sixteen, one turn at a time"], { env: served.env, timeoutMs: 60_000 })
  expect(result.code).toBe(0)
  const printed = events(result)
  const compactions = printed.filter((event) => event._tag === "Compaction")
  expect(compactions.length).toBeGreaterThanOrEqual(1)
  expect(compactions.length).toBeLessThanOrEqual(3)
  for (const compaction of compactions) expect(compaction.afterTokens).toBeLessThan(Math.min(compaction.beforeTokens, 6000 * 0.75))
  expect(Math.max(...server.requests.filter((request) => !isSummary(request)).map(size))).toBeLessThanOrEqual(6000)
  // The summary keeps its beginning and its end.
  const after = server.requests.find((request, i) => i > 0 && isSummary(server!.requests[i - 1]!))!
  const kept = after.body.messages[0].content[1].text
  expect(kept).toContain("Handoff begins.")
  expect(kept).toContain("characters left out")
  expect(kept).toEndWith("Next step: go on counting.")
})
