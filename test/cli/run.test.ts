import { afterEach, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, clanka, MAIN } from "../support/cli.ts"
import { fromSubagent, fakeProviders, startFakeModel, type FakeRequest, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

const directory = temporaryDirectory("clanka-run-")
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const MODEL: Record<string, string> = { anthropic: "anthropic/claude-sonnet-4-5", openai: "openai/gpt-5", "openai-compatible": "openai-compatible/qwen3" }

async function serve(provider: (typeof fakeProviders)[number], turns: FakeTurn[]): Promise<Record<string, string>> {
  server = await startFakeModel(provider, turns)
  return { ...server.env, CLANKA_MODEL: MODEL[provider]! }
}

const finish = (summary: string): FakeTurn => ({ blocks: [{ type: "execute", script: `await taskComplete(${JSON.stringify(summary)})` }] })

for (const provider of fakeProviders) {
  test(`--json against ${provider}: only SPEC events on stdout, one per line`, async () => {
    const env = await serve(provider, [
      { blocks: [{ type: "text", text: "Counting." }, { type: "execute", script: "console.log(2 + 2)" }] },
      finish("four"),
    ])
    const result = await clanka(["run", "--json", "-C", directory, "add 2 and 2"], { env })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
    expect(events.map((event) => event._tag)).toEqual([
      "AgentStart",
      "ReasoningStart",
      "ReasoningDelta",
      "ReasoningEnd",
      "ScriptStart",
      "ScriptDelta",
      "ScriptEnd",
      "Usage",
      "ScriptOutputDelta",
      "ScriptOutput",
      "ScriptStart",
      "ScriptDelta",
      "ScriptEnd",
      "Usage",
      "ScriptOutput",
      "AgentFinished",
    ])
    expect(events[0]).toMatchObject({ prompt: "add 2 and 2", provider, directory })
    expect(events[8]).toEqual({ _tag: "ScriptOutputDelta", id: expect.any(String), text: "4\n" })
    expect(events[9]).toEqual({ _tag: "ScriptOutput", output: "4\n" })
    expect(events.at(-1)).toMatchObject({ summary: "four", turns: 2 })
    expect(Object.keys(events.at(-1).usage).sort()).toEqual(
      ["cacheReadTokens", "cacheWriteTokens", "contextTokens", "contextWindow", "costUsd", "inputTokens", "outputTokens"],
    )
  })
}

test("text output (piped): the summary alone on stdout; the prompt can come from stdin", async () => {
  const env = await serve("anthropic", [finish("All done.")])
  const result = await clanka(["run", "-C", directory, "-"], { env, stdin: "do the thing\n" })
  expect(result.code).toBe(0)
  expect(result.stdout).toBe("All done.\n")
  expect(result.stderr).toContain("▸ execute")
  expect(server!.requests[0]!.lastUserText).toBe("do the thing")
})

test("--json-schema in text mode prints the validated JSON alone", async () => {
  const schemaFile = join(directory, "schema.json")
  writeFileSync(schemaFile, JSON.stringify({ type: "object", required: ["ok"], properties: { ok: { type: "boolean" } } }))
  const env = await serve("openai", [finish(JSON.stringify({ ok: true }))])
  const result = await clanka(["run", "-o", "text", "--json-schema", schemaFile, "-C", directory, "check"], { env })
  expect(result.code).toBe(0)
  expect(JSON.parse(result.stdout)).toEqual({ ok: true })
})

test("a refused key: exit 1 and one clear line naming the variable", async () => {
  const env = await serve("anthropic", [{ error: { status: 401, message: "invalid x-api-key" } }])
  const result = await clanka(["run", "-C", directory, "hi"], { env })
  expect(result.code).toBe(1)
  expect(result.stdout).toBe("")
  expect(result.stderr.trimEnd().split("\n").at(-1)).toMatch(/^clanka: .*invalid x-api-key.*ANTHROPIC_API_KEY/)
})

test("--max-turns: exit 1, AgentError as the last ndjson line", async () => {
  const again: FakeTurn = { blocks: [{ type: "execute", script: "console.log(1)" }] }
  const env = await serve("anthropic", [again, again])
  const result = await clanka(["run", "--json", "--max-turns", "1", "-C", directory, "loop"], { env })
  expect(result.code).toBe(1)
  expect(JSON.parse(result.stdout.trimEnd().split("\n").at(-1)!)).toEqual({
    _tag: "AgentError",
    message: "stopped after 1 model turn (--max-turns 1) before the task was complete",
    exitCode: 1,
  })
  expect(result.stderr).toBe("clanka: stopped after 1 model turn (--max-turns 1) before the task was complete\n")
})

test("--turn-timeout: a stalled stream is retried", async () => {
  const env = await serve("openai-compatible", [{ stall: { blocks: [{ type: "text", text: "hm" }] } }, finish("ok")])
  // 1 s, not less: the retried answer's first chunk must come within it, on a loaded machine too.
  const result = await clanka(["run", "--json", "--turn-timeout", "1", "-C", directory, "go"], { env })
  expect(result.code).toBe(0)
  const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
  expect(events.filter((event) => event._tag === "ErrorRetry")).toEqual([
    { _tag: "ErrorRetry", error: { message: "the model sent nothing for 1 s (turn timeout)", retryable: true } },
  ])
})

test("--turn-timeout: a model that stalls every time ends with an error that does not say retrying", async () => {
  const stall: FakeTurn = { stall: { blocks: [{ type: "text", text: "hm" }] } }
  const env = await serve("openai-compatible", Array.from({ length: 7 }, () => stall))
  const result = await clanka(["run", "-o", "text", "--turn-timeout", "0.1", "-C", directory, "go"], { env })
  expect(result.code).toBe(1)
  expect(result.stderr.split("\n").at(-2)).toBe("clanka: the model sent nothing for 0.1 s (turn timeout) (gave up after 7 attempts)")
})

test("--turn-timeout in text output: the retry line says retrying once", async () => {
  const env = await serve("openai-compatible", [{ stall: { blocks: [{ type: "text", text: "hm" }] } }, finish("ok")])
  // 1 s, not less: on a loaded machine the answer's first chunk may itself take a few hundred ms.
  const result = await clanka(["run", "-o", "text", "--turn-timeout", "1", "-C", directory, "go"], { env })
  expect(result.code).toBe(0)
  expect(result.stdout).toBe("ok\n")
  const warnings = result.stderr.split("\n").filter((line) => line.startsWith("⚠"))
  expect(warnings).toEqual(["⚠ the model sent nothing for 1 s (turn timeout); retrying"])
})

test("usage errors are exit 2 with one line", async () => {
  const noModel = await clanka(["run", "-C", directory, "hi"], { env: { CLANKA_MODEL: "", ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" } })
  expect(noModel.code).toBe(2)
  expect(noModel.stderr).toBe(
    "clanka: no model: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --model provider/model (e.g. anthropic/claude-sonnet-4-5) or set CLANKA_MODEL\n",
  )

  const noKey = await clanka(["run", "-m", "anthropic/claude-sonnet-4-5", "-C", directory, "hi"], { env: { ANTHROPIC_API_KEY: "" } })
  expect(noKey.code).toBe(2)
  expect(noKey.stderr).toBe("clanka: ANTHROPIC_API_KEY is not set: export it to use anthropic models\n")

  const unknown = await clanka(["run", "--json", "-m", "acme/x", "-C", directory, "hi"])
  expect(unknown.code).toBe(2)
  expect(unknown.stderr).toContain('clanka: unknown model provider "acme": use one of anthropic, openai, openai-compatible')
  expect(JSON.parse(unknown.stdout)).toMatchObject({ _tag: "AgentError", exitCode: 2 })

  const badOutput = await clanka(["run", "-o", "yaml", "hi"])
  expect(badOutput.code).toBe(2)
  expect(badOutput.stderr).toBe('clanka: unknown output format "yaml": use one of pretty, ndjson, text\n')
})

test("Ctrl-C stops the run: exit 130", async () => {
  const env = await serve("anthropic", [{ blocks: [{ type: "execute", script: "console.log('waiting'); await sleep(20000)" }] }])
  const child = Bun.spawn([BUN, MAIN, "run", "--json", "-C", directory, "wait"], {
    env: { ...process.env, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  // Interrupt once the script is running: the ScriptEnd line has been printed.
  const reader = child.stdout.getReader()
  let stdout = ""
  while (!stdout.includes('"ScriptEnd"')) {
    const { value, done } = await reader.read()
    if (done) break
    stdout += new TextDecoder().decode(value)
  }
  await Bun.sleep(100)
  child.kill("SIGINT")
  while (true) {
    const { value, done } = await reader.read()
    if (done) break
    stdout += new TextDecoder().decode(value)
  }
  expect(await child.exited).toBe(130)
  expect(JSON.parse(stdout.trimEnd().split("\n").at(-1)!)).toEqual({ _tag: "AgentError", message: "interrupted", exitCode: 130 })
})

test("without --model or CLANKA_MODEL the provider whose key is set picks the model", async () => {
  const env = await serve("anthropic", [finish("done")])
  const result = await clanka(["run", "--json", "-C", directory, "hi"], { env: { ...env, CLANKA_MODEL: "", OPENAI_API_KEY: "" } })
  expect(result.code).toBe(0)
  expect(JSON.parse(result.stdout.split("\n")[0]!)).toMatchObject({ _tag: "AgentStart", provider: "anthropic", model: "claude-sonnet-4-5" })
})

test("--subagent-model: delegate() sub-agents run on that model, the parent on --model", async () => {
  const turn = (request: FakeRequest): FakeTurn => {
    if (fromSubagent(request)) return finish("sub done")
    if (request.toolResults.length === 0) return { blocks: [{ type: "execute", script: 'console.log(await delegate("look around"))' }] }
    return finish(request.toolResults[0]!.trim())
  }
  const env = await serve("anthropic", [turn, turn, turn])
  const result = await clanka(["run", "--json", "--subagent-model", "anthropic/claude-haiku-4-5", "-C", directory, "delegate it"], { env })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
  expect(events[0]).toMatchObject({ _tag: "AgentStart", provider: "anthropic", model: "claude-sonnet-4-5" })
  expect(events.find((event) => event._tag === "SubagentStart")).toMatchObject({
    prompt: "look around",
    provider: "anthropic",
    model: "claude-haiku-4-5",
  })
  expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "sub done" })
  const models = server!.requests.map((request) => [fromSubagent(request) ? "sub" : "parent", request.body.model])
  expect(models).toEqual([
    ["parent", "claude-sonnet-4-5"],
    ["sub", "claude-haiku-4-5"],
    ["parent", "claude-sonnet-4-5"],
  ])
})

test("piped stdin with no PROMPT argument is the prompt", async () => {
  const env = await serve("anthropic", [finish("read it")])
  const result = await clanka(["run", "--json", "-C", directory], { env, stdin: "  rename the module\n\n" })
  expect(result.code).toBe(0)
  expect(JSON.parse(result.stdout.split("\n")[0]!)).toMatchObject({ _tag: "AgentStart", prompt: "rename the module" })
  expect(server!.requests[0]!.lastUserText).toBe("rename the module")
})

test("an empty prompt is exit 2 with one line, and no model request", async () => {
  const env = await serve("anthropic", [finish("never")])
  const empty = { code: 2, stdout: "", stderr: "clanka: empty prompt: pass the task as an argument or on stdin\n" }
  expect(await clanka(["run", "-C", directory, ""], { env })).toEqual(empty)
  expect(await clanka(["run", "-C", directory], { env, stdin: "" })).toEqual(empty)
  expect(await clanka(["run", "-C", directory], { env, stdin: " \n\t\n" })).toEqual(empty)
  expect(await clanka(["run", "-C", directory, "-"], { env, stdin: "" })).toEqual(empty)
  expect(server!.requests.length).toBe(0)
})

test.each([403, 404])("HTTP %d from the model is not retried: exit 1, one line on stderr, no ErrorRetry", async (status) => {
  const env = await serve("anthropic", [{ error: { status, message: "no access to this model" } }, finish("never")])
  const result = await clanka(["run", "--json", "-C", directory, "hi"], { env })
  const message =
    status === 403
      ? "Anthropic API error 403 (permission_error): no access to this model — check ANTHROPIC_API_KEY"
      : "Anthropic API error 404 (not_found_error): no access to this model"
  expect(result.code).toBe(1)
  expect(result.stderr).toBe(`clanka: ${message}\n`)
  const tags = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line)._tag)
  expect(tags).toEqual(["AgentStart", "AgentError"])
  expect(JSON.parse(result.stdout.trimEnd().split("\n").at(-1)!)).toEqual({ _tag: "AgentError", message, exitCode: 1 })
  expect(server!.requests.length).toBe(1)
})

test("a negative number in the prompt is a word of it, not a flag", async () => {
  const env = await serve("anthropic", [finish("ok")])
  const result = await clanka(["run", "--json", "-C", directory, "count", "-1", "down"], { env })
  expect(result.code).toBe(0)
  expect(JSON.parse(result.stdout.split("\n")[0]!)).toMatchObject({ _tag: "AgentStart", prompt: "count -1 down" })
})
