import { afterEach, describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fakeProviders, type FakeTurn } from "../support/fake-model.ts"
import { brief, rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})
async function setup(...args: Parameters<typeof rig>): Promise<Rig> {
  current = await rig(...args)
  return current
}

describe.each(fakeProviders)("%s", (provider) => {
  test("a multi-turn task streams the exact events and sends each script's output back", async () => {
    const script1 = 'await writeFile({ path: "notes.txt", content: "one\\ntwo" })\nconsole.log("wrote", "notes.txt")'
    const script2 = 'const text = await readFile({ path: "notes.txt" })\nconsole.log(text.split("\\n").length)\nawait taskComplete("notes.txt has 2 lines")'
    const r = await setup(provider, [
      { blocks: [{ type: "text", text: ["I will ", "write it."] }, { type: "execute", script: script1, chunks: 7 }] },
      { blocks: [{ type: "execute", script: script2, chunks: 3 }] },
    ])
    const events = await r.run("write notes")
    const start = events[0]!
    expect(start).toMatchObject({ _tag: "AgentStart", prompt: "write notes", provider, directory: r.directory })
    expect((start as { tools: string[] }).tools).toContain("taskComplete")
    const lines = events.slice(1).map(brief)
    // Script deltas concatenate to the exact script, however the JSON argument was split.
    const scripts = lines.join("\n").split("ScriptStart\n").slice(1).map((block) =>
      block
        .split("\nScriptEnd")[0]!
        .split("\n")
        .map((line) => JSON.parse(line.slice("ScriptDelta ".length)))
        .join(""),
    )
    expect(scripts).toEqual([script1, script2])
    expect(lines.filter((line) => !line.startsWith("ScriptDelta") && !line.startsWith("ReasoningDelta"))).toEqual([
      "ReasoningStart",
      "ReasoningEnd",
      "ScriptStart",
      "ScriptEnd",
      "Usage",
      'ScriptOutputDelta "wrote notes.txt\\n"',
      'ScriptOutput "wrote notes.txt\\n"',
      "ScriptStart",
      "ScriptEnd",
      "Usage",
      'ScriptOutputDelta "2\\n"',
      'ScriptOutput "2\\n"',
      'AgentFinished "notes.txt has 2 lines" turns=2',
    ])
    expect(lines.filter((line) => line.startsWith("ReasoningDelta"))).toEqual(['ReasoningDelta "I will "', 'ReasoningDelta "write it."'])
    expect(readFileSync(join(r.directory, "notes.txt"), "utf8")).toBe("one\ntwo")
    expect(r.server.requests[1]!.toolResults).toEqual(["wrote notes.txt\n"])
    expect(r.server.requests[0]!.toolNames).toEqual(["execute"])
  })

  test("the system prompt holds the tool declarations and AGENTS.md", async () => {
    const r = await setup(provider, [{ blocks: [{ type: "execute", script: 'taskComplete("ok")' }] }], {
      agentsMd: "Always run the linter before committing.",
    })
    await r.run("hi")
    const system = r.server.requests[0]!.system
    expect(system).toContain("declare function readFile(")
    expect(system).toContain("declare function taskComplete(output: string): Promise<void>")
    expect(system).toContain("Always run the linter before committing.")
    expect(r.server.requests[0]!.lastUserText).toBe("hi")
  })

  test("429 then 5xx then success: two ErrorRetry events and a finished run", async () => {
    const r = await setup(provider, [
      { error: { status: 429 } },
      { error: { status: provider === "anthropic" ? 529 : 503 } },
      { blocks: [{ type: "execute", script: 'taskComplete("done")' }] },
    ])
    const lines = (await r.run("go")).map(brief)
    expect(lines.filter((line) => line.startsWith("ErrorRetry") || line.startsWith("Agent"))).toEqual([
      "AgentStart",
      "ErrorRetry 429",
      `ErrorRetry ${provider === "anthropic" ? 529 : 503}`,
      'AgentFinished "done" turns=1',
    ])
  })

  test("401 is not retried: AgentError exit 1 naming the key variable", async () => {
    const r = await setup(provider, [{ error: { status: 401, message: "invalid api key" } }])
    const events = await r.run("go")
    const last = events.at(-1)!
    expect(last._tag).toBe("AgentError")
    expect(last).toMatchObject({ exitCode: 1 })
    expect((last as { message: string }).message).toContain(provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY")
    expect(r.server.requests.length).toBe(1)
    expect(events.some((event) => event._tag === "ErrorRetry")).toBe(false)
  })

  test("a stalled stream triggers the turn timeout and the turn is retried", async () => {
    const r = await setup(
      provider,
      [{ stall: { blocks: [{ type: "text", text: "thinking abo" }] } }, { blocks: [{ type: "execute", script: 'taskComplete("after stall")' }] }],
      // Long enough for the retried answer to start on a loaded machine.
      { turnTimeoutMs: 1000 },
    )
    const started = performance.now()
    const events = await r.run("go")
    // The stalled stream never ends by itself: the timeout ended it, not the test's.
    expect(performance.now() - started).toBeLessThan(10_000)
    const retry = events.find((event) => event._tag === "ErrorRetry")
    expect(retry).toEqual({
      _tag: "ErrorRetry",
      error: { message: "the model sent nothing for 1 s (turn timeout)", retryable: true },
    } as never)
    expect(events.map(brief)).toContain('AgentFinished "after stall" turns=1')
    // The partial block was closed before the retry.
    const tags = events.map((event) => event._tag)
    expect(tags.indexOf("ReasoningEnd")).toBeLessThan(tags.indexOf("ErrorRetry"))
  })
})

test("max turns ends with AgentError exit 1", async () => {
  const turn: FakeTurn = { blocks: [{ type: "execute", script: "console.log('again')" }] }
  const r = await setup("anthropic", [turn, turn, turn], { maxTurns: 2 })
  const events = await r.run("loop")
  expect(events.at(-1)).toEqual({
    _tag: "AgentError",
    message: "stopped after 2 model turns (--max-turns 2) before the task was complete",
    exitCode: 1,
  })
  expect(r.server.requests.length).toBe(2)
})

test("a text-only turn is nudged twice, then its text is the summary", async () => {
  const r = await setup("anthropic", [
    { blocks: [{ type: "text", text: "Maybe done?" }] },
    { blocks: [{ type: "text", text: "Still talking." }] },
    { blocks: [{ type: "text", text: "The answer is 42." }] },
  ])
  const events = await r.run("question")
  expect(brief(events.at(-1)!)).toBe('AgentFinished "The answer is 42." turns=3')
  expect(r.server.requests[1]!.lastUserText).toContain("call taskComplete(summary)")
})

test("conversation mode: a text answer ends the turn and history lasts across prompts", async () => {
  const r = await setup(
    "anthropic",
    [{ blocks: [{ type: "text", text: "Hello!" }] }, { blocks: [{ type: "execute", script: 'console.log(6*7)' }] }, { blocks: [{ type: "text", text: "It is 42." }] }],
    { conversation: true },
  )
  expect(brief((await r.run("hi")).at(-1)!)).toBe('AgentFinished "Hello!" turns=1')
  expect(brief((await r.run("what is 6*7?")).at(-1)!)).toBe('AgentFinished "It is 42." turns=2')
  const body = r.server.requests[1]!.body
  expect(body.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"])
  expect(r.server.requests[2]!.toolResults).toEqual(["42\n"])
  expect(r.server.requests[0]!.system).toContain("This is a conversation")
})

test("steering cuts the stream at the next block end and becomes a user message", async () => {
  const r = await setup(
    "anthropic",
    [
      { blocks: [{ type: "text", text: ["a", "b", "c", "d"] }, { type: "execute", script: "console.log('never')" }], delayMs: 15 },
      { blocks: [{ type: "execute", script: 'taskComplete("steered")' }] },
    ],
    { conversation: true },
  )
  const events: string[] = []
  for await (const event of r.agent.send("start")) {
    events.push(brief(event))
    if (event._tag === "ReasoningDelta" && event.delta === "a") r.agent.steer("use tabs instead")
  }
  expect(events.filter((line) => line.startsWith("Script"))).toEqual(["ScriptStart", 'ScriptDelta "taskComplete(\\"steered\\")"', "ScriptEnd", 'ScriptOutput "(no output)"'])
  expect(r.server.requests[1]!.lastUserText).toBe("use tabs instead")
  expect(r.server.requests[1]!.body.messages.at(-2)).toEqual({ role: "assistant", content: [{ type: "text", text: "abcd" }] })
})

test("aborting the signal stops the running script: AgentError exit 130", async () => {
  const r = await setup("anthropic", [{ blocks: [{ type: "execute", script: "await sleep(10000)" }] }])
  const abort = new AbortController()
  setTimeout(() => abort.abort(), 300)
  const started = performance.now()
  const events = await r.run("wait", abort.signal)
  expect(performance.now() - started).toBeLessThan(3000)
  expect(events.at(-1)).toEqual({ _tag: "AgentError", message: "interrupted", exitCode: 130 })
})

test("anthropic requests carry cache breakpoints on tools, system and the newest messages", async () => {
  const r = await setup("anthropic", [
    { blocks: [{ type: "execute", script: "console.log(1)" }] },
    { blocks: [{ type: "execute", script: "taskComplete('x')" }] },
  ])
  await r.run("go")
  const body = r.server.requests[1]!.body
  expect(body.tools.at(-1).cache_control).toEqual({ type: "ephemeral" })
  expect(body.system.at(-1).cache_control).toEqual({ type: "ephemeral" })
  const marked = body.messages.filter((message: any) => message.content.at(-1).cache_control)
  expect(marked.map((message: any) => message.role)).toEqual(["user", "user"])
})

test("the turn timer is paused while a script runs", async () => {
  const r = await setup(
    "anthropic",
    // A timeout the answers themselves meet on a loaded machine; a script that outlasts it.
    [{ blocks: [{ type: "execute", script: "await sleep(1500); console.log('slept')" }] }, { blocks: [{ type: "execute", script: "taskComplete('ok')" }] }],
    { turnTimeoutMs: 1000 },
  )
  const lines = (await r.run("nap")).map(brief)
  expect(lines.filter((line) => line.startsWith("ErrorRetry"))).toEqual([])
  expect(lines).toContain('ScriptOutput "slept\\n"')
  expect(lines.at(-1)).toBe('AgentFinished "ok" turns=2')
})

test("a script that throws: its output and the error line go back to the model, the run goes on", async () => {
  const r = await setup("anthropic", [
    { blocks: [{ type: "execute", script: "console.log('before'); throw new Error('boom')" }] },
    { blocks: [{ type: "execute", script: "taskComplete('recovered')" }] },
  ])
  const events = await r.run("try")
  const output = events.find((event) => event._tag === "ScriptOutput") as { output: string }
  expect(output.output.startsWith("before\n")).toBe(true)
  expect(output.output.endsWith("\nThe script failed: Error: boom (line 1)")).toBe(true)
  expect(r.server.requests[1]!.toolResults).toEqual([output.output])
  expect(brief(events.at(-1)!)).toBe('AgentFinished "recovered" turns=2')
})
