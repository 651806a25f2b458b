import { expect, test } from "bun:test"
import { BUN, clanka, MAIN } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

// A base URL that cannot be parsed is bad input: exit 2 at once, naming the variable, before any
// model call. A server that refuses the connection is worth retrying, and each retry names the
// URL that was tried.
const directory = temporaryDirectory("clanka-base-url-")

const cases = [
  {
    model: "anthropic/claude-sonnet-4-5",
    env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "not a url" },
    line: 'clanka: ANTHROPIC_BASE_URL is not an http(s) URL: "not a url"; set it to one such as https://api.anthropic.com, or unset it',
  },
  {
    model: "openai/gpt-5",
    env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "not a url" },
    line: 'clanka: OPENAI_BASE_URL is not an http(s) URL: "not a url"; set it to one such as https://api.openai.com/v1, or unset it',
  },
  {
    model: "openai-compatible/qwen3",
    env: { OPENAI_BASE_URL: "localhost:11434/v1" },
    line: 'clanka: OPENAI_BASE_URL is not an http(s) URL: "localhost:11434/v1"; set it to one such as http://localhost:11434/v1, or unset it',
  },
]

for (const { model, env, line } of cases) {
  test(`${model}: a base URL that is not a URL is exit 2 at once, naming the variable`, async () => {
    const started = Date.now()
    const result = await clanka(["run", "-C", directory, "-m", model, "hi"], { env, timeoutMs: 8_000 })
    expect(result).toEqual({ code: 2, stdout: "", stderr: line + "\n" })
    expect(Date.now() - started).toBeLessThan(5_000)
  })
}

test("--json: the bad base URL is the AgentError line, and nothing else runs", async () => {
  const result = await clanka(["run", "--json", "-C", directory, "-m", cases[0]!.model, "hi"], { env: cases[0]!.env })
  expect(result.code).toBe(2)
  expect(result.stdout.trimEnd().split("\n").map((event) => JSON.parse(event))).toEqual([
    { _tag: "AgentError", message: cases[0]!.line.slice("clanka: ".length), exitCode: 2 },
  ])
})

test("a refused connection is retried, and the ErrorRetry names the URL tried", async () => {
  const child = Bun.spawn([BUN, MAIN, "run", "--json", "-C", directory, "-m", "anthropic/claude-sonnet-4-5", "hi"], {
    env: { ...process.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" },
    stdout: "pipe",
    stderr: "ignore",
    timeout: 20_000,
  })
  try {
    let text = ""
    const decoder = new TextDecoder()
    for await (const chunk of child.stdout) {
      text += decoder.decode(chunk, { stream: true })
      if (text.split("\n").length > 2) break
    }
    const retry = JSON.parse(text.split("\n")[1]!)
    expect(retry).toEqual({
      _tag: "ErrorRetry",
      error: { message: "cannot reach the Anthropic API at http://127.0.0.1:9/v1/messages: connection refused", retryable: true },
    })
  } finally {
    child.kill("SIGKILL")
  }
})
