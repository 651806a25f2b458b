// SPEC section 6: 429/5xx are retried with exponential backoff and jitter, up to a limit;
// 400/401/403/404 end the run at once with one clear line.
import { afterEach, describe, expect, spyOn, test } from "bun:test"
import { backoffMs, DEFAULT_RETRY } from "../../src/agent/retry.ts"
import { fakeProviders, type FakeProvider } from "../support/fake-model.ts"
import { brief, rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

describe("backoffMs: exponential with jitter in the upper half, capped", () => {
  const policy = { maxRetries: 6, baseMs: 100, maxMs: 1000 }

  test("every wait lies in [ceiling/2, ceiling], the ceiling doubling per attempt up to maxMs", () => {
    const ceilings = [100, 200, 400, 800, 1000, 1000, 1000]
    for (const [attempt, ceiling] of ceilings.entries()) {
      const waits = Array.from({ length: 200 }, () => backoffMs(policy, attempt))
      for (const wait of waits) {
        expect(wait).toBeGreaterThanOrEqual(ceiling / 2)
        expect(wait).toBeLessThanOrEqual(ceiling)
      }
      // Jitter: the waits of one attempt are not all the same.
      expect(new Set(waits).size).toBeGreaterThan(1)
    }
  })

  test("the bounds are reached exactly at the extremes of the random draw", () => {
    const random = spyOn(Math, "random")
    try {
      random.mockReturnValue(0)
      expect([0, 1, 2, 3, 4, 10].map((attempt) => backoffMs(policy, attempt))).toEqual([50, 100, 200, 400, 500, 500])
      random.mockReturnValue(0.999999)
      expect([0, 1, 2, 3, 4, 10].map((attempt) => Math.round(backoffMs(policy, attempt)))).toEqual([100, 200, 400, 800, 1000, 1000])
    } finally {
      random.mockRestore()
    }
  })

  test("the default policy: 6 retries, 1 s first wait, 30 s at most", () => {
    expect(DEFAULT_RETRY).toEqual({ maxRetries: 6, baseMs: 1000, maxMs: 30_000 })
  })
})

const refused: Record<FakeProvider, (status: number, url: string) => string> = {
  anthropic: (status) =>
    status === 403
      ? "Anthropic API error 403 (permission_error): fake error 403 — check ANTHROPIC_API_KEY"
      : "Anthropic API error 404 (not_found_error): fake error 404",
  openai: (status) =>
    status === 403
      ? "OpenAI API error 403 (unsupported_country_region_territory): fake error 403 — check OPENAI_API_KEY"
      : "OpenAI API error 404 (model_not_found): fake error 404",
  "openai-compatible": (status, url) =>
    status === 403
      ? `OpenAI-compatible API at ${url} error 403 (unsupported_country_region_territory): fake error 403 — check OPENAI_API_KEY`
      : `OpenAI-compatible API at ${url} error 404 (model_not_found): fake error 404`,
}

describe.each(fakeProviders)("%s", (provider) => {
  test.each([403, 404])("%d is not retried: one request, no ErrorRetry, AgentError exit 1", async (status) => {
    current = await rig(provider, [{ error: { status } }, { blocks: [{ type: "execute", script: 'taskComplete("should not get here")' }] }])
    const events = await current.run("go")
    expect(events.map(brief)).toEqual(["AgentStart", `AgentError 1 ${refused[provider](status, current.server.url)}`])
    expect(current.server.requests.length).toBe(1)
  })
})

describe.each(fakeProviders)("%s: the status decides, not the type the body names", (provider) => {
  test.each([
    [404, "api_error"],
    [400, "overloaded_error"],
  ])("%d with a body of type %s is not retried", async (status, type) => {
    // The shape both APIs use: {error: {type, message}} (no OpenAI `code` to take precedence).
    const body = { error: { type, message: `fake error ${status}` } }
    current = await rig(provider, [{ error: { status, body } }, { blocks: [{ type: "execute", script: 'taskComplete("should not get here")' }] }])
    const events = await current.run("go")
    expect(events.map(brief)).toEqual(["AgentStart", expect.stringMatching(new RegExp(`^AgentError 1 .*error ${status} \\(${type}\\): fake error ${status}$`))])
    expect(current.server.requests.length).toBe(1)
  })
})

test("503 three times with maxRetries 2: two ErrorRetry events, then AgentError naming the attempts", async () => {
  const unavailable = { error: { status: 503, message: "try later" } }
  current = await rig("anthropic", [unavailable, unavailable, unavailable, { blocks: [{ type: "execute", script: 'taskComplete("late")' }] }], {
    retry: { maxRetries: 2, baseMs: 1, maxMs: 5 },
  })
  const events = await current.run("go")
  expect(events.map(brief)).toEqual([
    "AgentStart",
    "ErrorRetry 503",
    "ErrorRetry 503",
    "AgentError 1 Anthropic API error 503 (api_error): try later (gave up after 3 attempts)",
  ])
  expect(events[1]).toEqual({ _tag: "ErrorRetry", error: { message: "Anthropic API error 503 (api_error): try later", retryable: true, status: 503 } })
  expect(current.server.requests.length).toBe(3)
})

describe.each(fakeProviders)("%s: Retry-After on a 429", (provider) => {
  const limited = (value: string) => ({ error: { status: 429, message: "slow down", headers: { "retry-after": value } } })
  const done = { blocks: [{ type: "execute" as const, script: 'taskComplete("ok")' }] }

  test("is honoured up to the longest backoff", async () => {
    current = await rig(provider, [limited("1"), done], { retry: { maxRetries: 2, baseMs: 1, maxMs: 5_000 } })
    const started = performance.now()
    const events = await current.run("go")
    expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "ok" })
    expect(performance.now() - started).toBeGreaterThanOrEqual(950)
  })

  test("a wait of days is cut to the longest backoff, and the ErrorRetry says so", async () => {
    current = await rig(provider, [limited("999999"), done], { retry: { maxRetries: 2, baseMs: 1, maxMs: 200 } })
    const started = performance.now()
    const events = await current.run("go")
    expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "ok" })
    expect(performance.now() - started).toBeLessThan(5_000)
    const retry = events.find((event) => event._tag === "ErrorRetry") as { error: { message: string } }
    expect(retry.error.message).toEndWith("slow down (the server asked to wait 999999 s; clanka waits at most 0.2 s)")
  })

  test.each(["-5", "soon", ""])("a Retry-After of %p is ignored: the usual backoff", async (value) => {
    current = await rig(provider, [limited(value), done], { retry: { maxRetries: 2, baseMs: 1, maxMs: 5_000 } })
    const started = performance.now()
    const events = await current.run("go")
    expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "ok" })
    expect(performance.now() - started).toBeLessThan(900)
    const retry = events.find((event) => event._tag === "ErrorRetry") as { error: { message: string } }
    expect(retry.error.message).toEndWith("slow down")
  })
})
