import { describe, expect, test } from "bun:test"
import { UsageError } from "../../src/errors.ts"
import { resolveModel } from "../../src/providers/resolve.ts"

const env = { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" }

function usageError(spec: string, environment: Record<string, string | undefined> = env): string {
  try {
    resolveModel(spec, environment)
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError)
    return (error as Error).message
  }
  throw new Error(`${spec} resolved`)
}

describe("resolveModel", () => {
  test("provider/model[:effort]", () => {
    const sonnet = resolveModel("anthropic/claude-sonnet-4-5", env)
    expect([sonnet.provider, sonnet.id, sonnet.effort, sonnet.contextWindow]).toEqual([
      "anthropic",
      "claude-sonnet-4-5",
      undefined,
      200_000,
    ])
    const gpt = resolveModel("openai/gpt-5.4:high", env)
    expect([gpt.provider, gpt.id, gpt.effort, gpt.contextWindow]).toEqual(["openai", "gpt-5.4", "high", null])
    // Ollama tags keep their colon; a known effort after it is still an effort.
    expect(resolveModel("openai-compatible/llama3.1:8b", env).id).toBe("llama3.1:8b")
    const qwen = resolveModel("openai-compatible/qwen3:32b:low", env)
    expect([qwen.id, qwen.effort]).toEqual(["qwen3:32b", "low"])
  })

  test("unknown provider lists the known ones", () => {
    expect(usageError("gemini/gemini-3")).toBe(
      'unknown model provider "gemini": use one of anthropic, openai, openai-compatible (as in provider/model[:effort], e.g. anthropic/claude-sonnet-4-5 or openai/gpt-5.2:high)',
    )
  })

  test("malformed spec explains the form", () => {
    const expected = (spec: string) =>
      `invalid model "${spec}": expected provider/model[:effort], e.g. anthropic/claude-sonnet-4-5 or openai/gpt-5.2:high`
    expect(usageError("claude-sonnet-4-5")).toBe(expected("claude-sonnet-4-5"))
    expect(usageError("anthropic/")).toBe(expected("anthropic/"))
    expect(usageError("/gpt-5")).toBe(expected("/gpt-5"))
  })

  test("unknown effort lists the efforts", () => {
    expect(usageError("openai/gpt-5:turbo")).toBe(
      'unknown effort "turbo" for openai: use one of none, minimal, low, medium, high, xhigh, max',
    )
  })

  test("a missing key names the variable", () => {
    expect(usageError("anthropic/claude-sonnet-4-5", {})).toBe(
      "ANTHROPIC_API_KEY is not set: export it to use anthropic models",
    )
    expect(usageError("openai/gpt-5", { ANTHROPIC_API_KEY: "a" })).toBe(
      "OPENAI_API_KEY is not set: export it to use openai models",
    )
    expect(usageError("openai-compatible/llama3.1", { OPENAI_API_KEY: "o" })).toBe(
      "OPENAI_BASE_URL is not set: export the server's URL to use openai-compatible models (e.g. http://localhost:11434/v1)",
    )
  })

  test("resolving loads no SDK", async () => {
    const proc = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const { resolveModel } = await import(${JSON.stringify(`${import.meta.dir}/../../src/providers/resolve.ts`)});
         resolveModel("anthropic/claude-haiku-4-5", { ANTHROPIC_API_KEY: "k" });
         resolveModel("openai/gpt-5", { OPENAI_API_KEY: "k" });
         console.log(Object.keys(require.cache).filter((k) => k.includes("node_modules")).length)`,
      ],
      { stdout: "pipe" },
    )
    expect((await new Response(proc.stdout).text()).trim()).toBe("0")
  })
})
