// SPEC sections 3 and 7: every ScriptStart…ScriptEnd block is followed by one ScriptOutput, and
// its output is exactly the tool result the model receives (or says why the script never ran).
import { afterEach, describe, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import type { AgentEvent } from "../../src/agent/events.ts"
import { fakeProviders } from "../support/fake-model.ts"
import { brief, rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

/** The Script events and what surrounds them, without the deltas. */
function scriptLines(events: AgentEvent[]): string[] {
  return events
    .map(brief)
    .filter((line) => (line.startsWith("Script") && !line.startsWith("ScriptDelta")) || line.startsWith("ErrorRetry"))
}

const done = { blocks: [{ type: "execute" as const, script: 'taskComplete("done")' }] }

test("execute called with the wrong input: ScriptOutput carries the error text the model gets", async () => {
  current = await rig("anthropic", [
    { blocks: [{ type: "tool-call", name: "execute", input: { code: "console.log(1)" } }] },
    done,
  ])
  const events = await current.run("go")
  const expected =
    'error: execute takes {"script": "<JavaScript program>"} but got the keys "code"; nothing ran. Call execute again with the program in "script".'
  expect(scriptLines(events)).toEqual([
    "ScriptStart",
    "ScriptEnd",
    `ScriptOutput ${JSON.stringify(expected)}`,
    "ScriptStart",
    "ScriptEnd",
    'ScriptOutput "(no output)"',
  ])
  expect(current.server.requests[1]!.toolResults).toEqual([expected])
})

test("a call to a tool other than execute opens no Script block; the model is told how to call it", async () => {
  current = await rig("anthropic", [
    { blocks: [{ type: "tool-call", name: "readFile", input: { path: "a.txt" } }] },
    { blocks: [{ type: "tool-call", name: "grep", input: { pattern: "x" } }] },
    done,
  ])
  const events = await current.run("go")
  expect(scriptLines(events)).toEqual(["ScriptStart", "ScriptEnd", 'ScriptOutput "(no output)"'])
  expect(current.server.requests[1]!.toolResults).toEqual([
    'error: readFile is a function inside the execute sandbox, not a tool. Call execute with a program that uses it, e.g. {"script": "console.log(await readFile(…))"}.',
  ])
  expect(current.server.requests[2]!.toolResults).toEqual([
    'error: there is no tool "grep". Your only tool is execute, with {"script": "<JavaScript program>"}; the functions declared in the system prompt are available inside the program.',
  ])
})

test("--json-schema rejecting taskComplete: ScriptOutput equals the tool result, rejection included", async () => {
  const schema = { type: "object", required: ["n"], properties: { n: { type: "number" } } }
  current = await rig(
    "anthropic",
    [
      { blocks: [{ type: "execute", script: 'console.log("hi"); await taskComplete("{}")' }] },
      { blocks: [{ type: "execute", script: 'await taskComplete(\'{"n": 1}\')' }] },
    ],
    { jsonSchema: schema },
  )
  const events = await current.run("go")
  const outputs = events.flatMap((event) => (event._tag === "ScriptOutput" ? [event.output] : []))
  const rejected =
    'hi\ntaskComplete was rejected: the output does not match the JSON Schema:\n$: missing required property "n"\nFix it and call taskComplete again.'
  expect(current.server.requests[1]!.toolResults).toEqual([rejected])
  expect(outputs).toEqual([rejected, "(no output)"])
  expect(events.map(brief).slice(-3)).toEqual(['ScriptOutput "(no output)"', 'StructuredOutput {"n":1}', 'AgentFinished "{\\"n\\": 1}" turns=2'])
})

describe.each(fakeProviders)("%s", (provider) => {
  test("a script streamed before the turn timed out gets a ScriptOutput saying it did not run, before the ErrorRetry", async () => {
    current = await rig(
      provider,
      [{ stall: { blocks: [{ type: "execute", script: 'console.log("first try")' }] } }, done],
      // Long enough for the retried answer to start on a loaded machine.
      { turnTimeoutMs: 1000 },
    )
    const events = await current.run("go")
    expect(scriptLines(events)).toEqual([
      "ScriptStart",
      "ScriptEnd",
      'ScriptOutput "(not run: the response was cut off and the turn is retried)"',
      "ErrorRetry -",
      "ScriptStart",
      "ScriptEnd",
      'ScriptOutput "(no output)"',
    ])
    expect(brief(events.at(-1)!)).toBe('AgentFinished "done" turns=1')
    // The dropped attempt left nothing in the history: the retry sees only the prompt.
    expect(current.server.requests[1]!.toolResults).toEqual([])
  })
})

test("a script cut by steering gets a ScriptOutput saying it did not run", async () => {
  current = await rig(
    "anthropic",
    [
      {
        blocks: [{ type: "execute", script: "console.log('never')" }, { type: "text", text: ["a", "b", "c"] }],
        delayMs: 15,
      },
      done,
    ],
    { conversation: true },
  )
  const events: AgentEvent[] = []
  for await (const event of current.agent.send("start")) {
    events.push(event)
    if (event._tag === "ScriptEnd" && events.filter((e) => e._tag === "ScriptEnd").length === 1) current.agent.steer("stop, do X")
  }
  expect(scriptLines(events)).toEqual([
    "ScriptStart",
    "ScriptEnd",
    'ScriptOutput "(not run: the response was cut off for your new message)"',
    "ScriptStart",
    "ScriptEnd",
    'ScriptOutput "(no output)"',
  ])
  expect(current.server.requests[1]!.lastUserText).toBe("stop, do X")
  expect(current.server.requests[1]!.toolResults).toEqual([])
})

test("a turn with two scripts whose first completes the task: the second is answered as not run", async () => {
  current = await rig(
    "anthropic",
    [
      {
        blocks: [
          { type: "execute", script: 'await taskComplete(\'{"n": 2}\')' },
          { type: "execute", script: 'console.log("late")' },
        ],
      },
    ],
    { jsonSchema: { type: "object" } },
  )
  const lines = (await current.run("go")).map(brief).filter((line) => !line.startsWith("ScriptDelta"))
  expect(lines.slice(1)).toEqual([
    "ScriptStart",
    "ScriptEnd",
    "ScriptStart",
    "ScriptEnd",
    "Usage",
    'ScriptOutput "(no output)"',
    'ScriptOutput "(not run: the task was already complete)"',
    'StructuredOutput {"n":2}',
    'AgentFinished "{\\"n\\": 2}" turns=1',
  ])
})

test("an interrupted script: the model and ScriptOutput get what it printed and that the user stopped it", async () => {
  current = await rig(
    "anthropic",
    [
      {
        blocks: [
          { type: "execute", script: 'console.log("started")\nawait writeFile({ path: "flag", content: "" })\nawait sleep(60000)' },
          { type: "execute", script: 'console.log("second")' },
        ],
      },
      { blocks: [{ type: "text", text: "Stopped." }] },
    ],
    { conversation: true },
  )
  const abort = new AbortController()
  const flag = `${current.directory}/flag`
  const poll = setInterval(() => {
    if (existsSync(flag)) abort.abort()
  }, 20)
  const lines = (await current.run("go", abort.signal)).map(brief)
  clearInterval(poll)
  expect(lines.filter((line) => line.startsWith("ScriptOutput") || line.startsWith("Agent")).slice(1)).toEqual([
    'ScriptOutputDelta "started\\n"',
    'ScriptOutput "started\\n[interrupted by the user]"',
    'ScriptOutput "(not run: interrupted by the user)"',
    "AgentError 130 interrupted",
  ])
  await current.run("what happened?")
  expect(current.server.requests[1]!.toolResults).toEqual(["started\n[interrupted by the user]", "(not run: interrupted by the user)"])
  expect(current.server.requests[1]!.lastUserText).toBe("what happened?")
})

test("without a schema too, a script after the one that called taskComplete does not run", async () => {
  current = await rig("openai", [
    {
      blocks: [
        { type: "execute", script: 'await taskComplete("done")' },
        { type: "execute", script: 'await writeFile({ path: "late.txt", content: "x" })' },
      ],
    },
  ])
  const lines = (await current.run("go")).map(brief).filter((line) => !line.startsWith("ScriptDelta"))
  expect(lines.slice(-3)).toEqual([
    'ScriptOutput "(no output)"',
    'ScriptOutput "(not run: the task was already complete)"',
    'AgentFinished "done" turns=1',
  ])
  expect(await Bun.file(`${current.directory}/late.txt`).exists()).toBe(false)
})

test("code after await taskComplete() in the same script still runs: the run ends after the script", async () => {
  current = await rig("anthropic", [
    {
      blocks: [
        {
          type: "execute",
          script: 'await taskComplete("done")\nconsole.log("after")\nawait writeFile({ path: "after.txt", content: "still ran" })',
        },
      ],
    },
  ])
  const lines = (await current.run("go")).map(brief).filter((line) => !line.startsWith("ScriptDelta"))
  expect(lines.slice(-2)).toEqual(['ScriptOutput "after\\n"', 'AgentFinished "done" turns=1'])
  expect(await Bun.file(`${current.directory}/after.txt`).text()).toBe("still ran")
  expect(current.server.requests.length).toBe(1)
})

test("a script printing more than the cap: the middle is cut with a marker, and the model gets exactly that", async () => {
  current = await rig(
    "anthropic",
    [{ blocks: [{ type: "execute", script: 'for (let i = 0; i < 5000; i++) console.log("line " + i)' }] }, done],
    { outputLimitBytes: 1024 },
  )
  const events = await current.run("go")
  const output = (events.find((event) => event._tag === "ScriptOutput") as { output: string }).output
  // 48,890 bytes printed. The first 512 bytes hold lines 0–64 whole (510 bytes), the last 512
  // hold lines 4949–4999 whole (510 bytes); the cut is at line boundaries.
  const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}\n`).join("")
  expect(output).toBe(`${lines(0, 64)}[… 4884 lines (47870 bytes) of output dropped …]\n${lines(4949, 4999)}`)
  expect(current.server.requests[1]!.toolResults[0]).toBe(output)
})

test("the live copy of a script's output stops at the same budget, with one line saying so", async () => {
  current = await rig(
    "anthropic",
    [{ blocks: [{ type: "execute", script: 'for (let i = 0; i < 5000; i++) console.log("line " + i)' }] }, done],
    { outputLimitBytes: 1024 },
  )
  const events = await current.run("go")
  const live = events.flatMap((event) => (event._tag === "ScriptOutputDelta" ? [event.text] : [])).join("")
  // 1024 bytes: lines 0–125 exactly (70 + 720 + 234 bytes).
  const lines = Array.from({ length: 126 }, (_, i) => `line ${i}\n`).join("")
  expect(live).toBe(`${lines}[… live output stops here (over the output budget); ScriptOutput has the capped text]\n`)
  // What the model gets is unchanged: head and tail of everything.
  const output = (events.find((event) => event._tag === "ScriptOutput") as { output: string }).output
  expect(output).toContain("[… 4884 lines (47870 bytes) of output dropped …]\nline 4949\n")
})
