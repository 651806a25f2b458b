import { describe, expect, test } from "bun:test"
import { contextWindow, costUsd } from "../../src/providers/prices.ts"

const usage = { inputTokens: 1_000_000, outputTokens: 100_000, cacheReadTokens: 2_000_000, cacheWriteTokens: 400_000 }

describe("price table", () => {
  test("costUsd of a known model adds input, output, cache read and cache write", () => {
    // claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million.
    expect(costUsd("anthropic", "claude-sonnet-4-5", usage)).toBeCloseTo(3 + 1.5 + 0.6 + 1.5, 10)
    // Dated snapshots price as their model.
    expect(costUsd("anthropic", "claude-sonnet-4-5-20250929", usage)).toBeCloseTo(6.6, 10)
    // gpt-5: $1.25 in, $10 out, $0.125 cached; cache writes at the input price.
    expect(costUsd("openai", "gpt-5", usage)).toBeCloseTo(1.25 + 1 + 0.25 + 0.5, 10)
  })

  test("an unknown model costs null, never a guess", () => {
    expect(costUsd("anthropic", "claude-sonnet-9", usage)).toBeNull()
    expect(costUsd("openai", "gpt-5.4", usage)).toBeNull()
    expect(costUsd("openai-compatible", "gpt-5", usage)).toBeNull()
  })

  test("context windows", () => {
    expect(contextWindow("anthropic", "claude-haiku-4-5")).toBe(200_000)
    expect(contextWindow("openai", "gpt-4.1")).toBe(1_047_576)
    expect(contextWindow("openai-compatible", "llama3.1")).toBeNull()
  })
})
