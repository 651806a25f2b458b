// `clanka run --input ndjson`: a program drives the agent through stdin lines (prompt, steer,
// cancel) and reads the --json events, through the real CLI and a fake model.
import { afterEach, expect, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { BUN, clanka, MAIN } from "../support/cli.ts"
import { startFakeModel, type FakeRequest, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

const root = temporaryDirectory("clanka-ndjson-in-")
const directory = join(root, "work")
mkdirSync(directory)
let homes = 0
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const finish = (summary: string): FakeTurn => ({ blocks: [{ type: "execute", script: `await taskComplete(${JSON.stringify(summary)})` }] })
const execute = (script: string): FakeTurn => ({ blocks: [{ type: "execute", script }] })

async function serve(turns: FakeTurn[]): Promise<Record<string, string>> {
  server = await startFakeModel("anthropic", turns)
  return { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_HOME: join(root, `home${++homes}`) }
}

/** A running clanka whose stdin the test writes as it reads the events. */
function drive(args: string[], env: Record<string, string>) {
  const child = Bun.spawn([BUN, MAIN, ...args], {
    cwd: directory,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  })
  const events: any[] = []
  let wake = () => {}
  const reading = (async () => {
    const decoder = new TextDecoder()
    let partial = ""
    for await (const chunk of child.stdout) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split("\n")
      partial = lines.pop()!
      for (const line of lines) events.push(JSON.parse(line))
      wake()
    }
    wake()
  })()
  return {
    events,
    send(line: object | string) {
      child.stdin.write(`${typeof line === "string" ? line : JSON.stringify(line)}\n`)
      child.stdin.flush()
    },
    /** Resolves with the first event (from `from` on) that matches. */
    async waitFor(match: (event: any) => boolean, from = 0): Promise<any> {
      const deadline = Date.now() + 15_000
      while (Date.now() < deadline) {
        const found = events.slice(from).find(match)
        if (found) return found
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, 200)
        })
      }
      throw new Error(`no such event; got:\n${events.map((event) => JSON.stringify(event)).join("\n")}`)
    },
    kill(signal: NodeJS.Signals) {
      child.kill(signal)
    },
    /** Waits for the end without closing stdin. */
    async exited(): Promise<{ code: number; stderr: string }> {
      const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text(), reading])
      return { code, stderr }
    },
    async end(): Promise<{ code: number; stderr: string }> {
      child.stdin.end()
      return this.exited()
    },
  }
}

/** Tags, with the fields a test cares about for some. */
function brief(event: any): string {
  switch (event._tag) {
    case "AgentStart":
      return `AgentStart ${JSON.stringify(event.prompt)}`
    case "ScriptOutputDelta":
      return `ScriptOutputDelta ${JSON.stringify(event.text)}`
    case "ScriptOutput":
      return `ScriptOutput ${JSON.stringify(event.output)}`
    case "AgentFinished":
      return `AgentFinished ${JSON.stringify(event.summary)}`
    case "AgentError":
      return `AgentError ${event.exitCode} ${event.message}`
    case "InputError":
      return `InputError ${event.line} ${event.message}`
    default:
      return event._tag
  }
}

const TURN = ["ScriptStart", "ScriptDelta", "ScriptEnd", "Usage"]

test("prompts run one after another in one session; a steer reaches the running one's next turn", async () => {
  const env = await serve([
    execute("console.log('started'); await sleep(1500); console.log('slept')"),
    (request: FakeRequest) => finish(`first done, told: ${request.lastUserText}`),
    (request: FakeRequest) => finish(`second done after ${request.body.messages.length} messages, asked: ${request.lastUserText}`),
  ])
  const run = drive(["run", "--input", "ndjson"], env)
  run.send({ type: "prompt", text: "first" })
  await run.waitFor((event) => event._tag === "ScriptOutputDelta" && event.text === "started\n")
  run.send({ type: "steer", text: "use tabs" })
  // A prompt sent while a run goes on waits for it.
  run.send({ type: "prompt", text: "second" })
  const { code, stderr } = await run.end()
  expect(stderr).toBe("")
  expect(code).toBe(0)
  expect(run.events.map(brief)).toEqual([
    'AgentStart "first"',
    ...TURN,
    'ScriptOutputDelta "started\\n"',
    'ScriptOutputDelta "slept\\n"',
    'ScriptOutput "started\\nslept\\n"',
    ...TURN,
    'ScriptOutput "(no output)"',
    'AgentFinished "first done, told: use tabs"',
    'AgentStart "second"',
    ...TURN,
    'ScriptOutput "(no output)"',
    // The history goes on: prompt; script; its result and the steer; script; its result and the new prompt.
    'AgentFinished "second done after 5 messages, asked: second"',
  ])
  const sessions = run.events.filter((event) => event._tag === "AgentStart").map((event) => event.sessionId)
  expect(sessions[0]).toBe(sessions[1])
})

test("cancel stops the running prompt with AgentError 130; the next prompt runs and sets the exit code", async () => {
  const env = await serve([
    execute("console.log('started'); await sleep(60000)"),
    (request: FakeRequest) => finish(`saw ${JSON.stringify(request.toolResults)}, asked: ${request.lastUserText}`),
  ])
  const run = drive(["run", "--input", "ndjson"], env)
  run.send({ type: "prompt", text: "wait forever" })
  await run.waitFor((event) => event._tag === "ScriptOutputDelta")
  const cancelled = performance.now()
  run.send({ type: "cancel" })
  await run.waitFor((event) => event._tag === "AgentError")
  expect(performance.now() - cancelled).toBeLessThan(5000)
  run.send({ type: "prompt", text: "go on" })
  const { code, stderr } = await run.end()
  expect(code).toBe(0)
  expect(stderr).toBe("clanka: interrupted\n")
  expect(run.events.map(brief)).toEqual([
    'AgentStart "wait forever"',
    ...TURN,
    'ScriptOutputDelta "started\\n"',
    'ScriptOutput "started\\n[interrupted by the user]"',
    "AgentError 130 interrupted",
    'AgentStart "go on"',
    ...TURN,
    'ScriptOutput "(no output)"',
    'AgentFinished "saw [\\"started\\\\n[interrupted by the user]\\"], asked: go on"',
  ])
})

test("the exit code is the last run's: a cancelled last prompt exits 130", async () => {
  const env = await serve([execute("console.log('started'); await sleep(60000)")])
  const run = drive(["run", "--input", "ndjson"], env)
  run.send({ type: "prompt", text: "wait" })
  await run.waitFor((event) => event._tag === "ScriptOutputDelta")
  run.send({ type: "cancel" })
  const { code } = await run.end()
  expect(code).toBe(130)
  expect(run.events.at(-1)).toEqual({ _tag: "AgentError", message: "interrupted", exitCode: 130 })
})

test("a line that is not a command: one InputError naming it, and reading goes on", async () => {
  const env = await serve([finish("done")])
  const input = [
    "not json",
    "[1]",
    '{"type":"dance"}',
    '{"type":"prompt"}',
    '{"type":"prompt","text":"  "}',
    '{"type":"steer","text":"too early"}',
    "",
    '{"type":"prompt","text":"go"}',
  ].join("\n")
  const result = await clanka(["run", "--input", "ndjson", "-C", directory], { env, stdin: `${input}\n` })
  expect(result.code).toBe(0)
  const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
  expect(events.slice(0, 6)).toEqual([
    { _tag: "InputError", message: expect.stringMatching(/^input line 1: not JSON: /), line: 1 },
    { _tag: "InputError", message: 'input line 2: not a JSON object; send {"type":"prompt"|"steer"|"cancel", "text": …}', line: 2 },
    { _tag: "InputError", message: 'input line 3: unknown "type" "dance": use "prompt", "steer" or "cancel"', line: 3 },
    { _tag: "InputError", message: 'input line 4: a prompt needs "text", a string', line: 4 },
    { _tag: "InputError", message: `input line 5: the prompt's "text" is empty`, line: 5 },
    { _tag: "InputError", message: "input line 6: nothing is running to steer; send a prompt", line: 6 },
  ])
  expect(events.slice(6).map(brief)).toEqual(['AgentStart "go"', ...TURN, 'ScriptOutput "(no output)"', 'AgentFinished "done"'])
})

test("--continue: the prompts go on from the saved session's history", async () => {
  const env = await serve([
    finish("noted"),
    (request: FakeRequest) => finish(`history: ${request.body.messages.map((m: any) => m.role).join(",")}; asked: ${request.lastUserText}`),
  ])
  const first = await clanka(["run", "--json", "-C", directory, "remember 7"], { env })
  expect(first.code).toBe(0)
  const id = JSON.parse(first.stdout.split("\n")[0]!).sessionId
  const result = await clanka(["run", "--input", "ndjson", "--continue", "-C", directory], { env, stdin: '{"type":"prompt","text":"which number?"}\n' })
  expect(result.code).toBe(0)
  const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
  expect(events[0]).toMatchObject({ _tag: "AgentStart", prompt: "which number?", sessionId: id, resumedFrom: id })
  expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "history: user,assistant,user; asked: which number?" })
  expect(server!.requests[1]!.body.messages[0].content[0].text ?? server!.requests[1]!.body.messages[0].content).toBe("remember 7")
})

test("refused: another input format, a PROMPT argument, another output format, an input with no prompt", async () => {
  const env = await serve([])
  const xml = await clanka(["run", "--input", "xml", "-C", directory], { env })
  expect(xml).toMatchObject({ code: 2, stdout: "", stderr: 'clanka: unknown input format "xml": --input takes ndjson\n' })
  const prompt = await clanka(["run", "--input", "ndjson", "-C", directory, "do it"], { env })
  expect(prompt.code).toBe(2)
  expect(prompt.stderr).toBe("clanka: --input ndjson reads the prompts from stdin; drop the PROMPT argument\n")
  const pretty = await clanka(["run", "--input", "ndjson", "-o", "pretty", "-C", directory], { env })
  expect(pretty.code).toBe(2)
  expect(pretty.stderr).toBe("clanka: --input ndjson writes --json events; drop --output pretty\n")
  const empty = await clanka(["run", "--input", "ndjson", "-C", directory], { env, stdin: "" })
  expect(empty.code).toBe(2)
  const message = '--input ndjson: the input held no prompt; send {"type":"prompt","text":"…"} lines on stdin'
  expect(JSON.parse(empty.stdout)).toEqual({ _tag: "AgentError", message, exitCode: 2 })
  expect(empty.stderr).toBe(`clanka: ${message}\n`)
})

test("SIGTERM stops the running prompt and the reading: exit 130 with stdin still open", async () => {
  const env = await serve([execute("console.log('started'); await sleep(60000)")])
  const run = drive(["run", "--input", "ndjson"], env)
  run.send({ type: "prompt", text: "wait" })
  await run.waitFor((event) => event._tag === "ScriptOutputDelta")
  run.kill("SIGTERM")
  const { code } = await run.exited()
  expect(code).toBe(130)
  expect(run.events.at(-1)).toEqual({ _tag: "AgentError", message: "interrupted", exitCode: 130 })
})

test("a line ends only at \\n: a prompt holding U+2028, U+2029 or a CR (JSON allows them raw) arrives whole", async () => {
  const env = await serve([finish("done")])
  const text = "one\u2028two\u2029three"
  // JSON.stringify writes U+2028 and U+2029 raw; a CR between tokens is JSON whitespace.
  const input = [`{"type":"prompt",\r"text":${JSON.stringify(text)}}`, "not json\rstill line 2", ""].join("\n")
  const result = await clanka(["run", "--input", "ndjson", "-C", directory], { env, stdin: input })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
  expect(events.filter((event) => event._tag === "InputError")).toEqual([
    { _tag: "InputError", message: expect.stringMatching(/^input line 2: not JSON: /), line: 2 },
  ])
  expect(events.find((event) => event._tag === "AgentStart").prompt).toBe(text)
  expect(server!.requests[0]!.lastUserText).toBe(text)
})

test("a line over 8 MiB is one InputError and is skipped, not run nor held whole; the next line is read", async () => {
  const env = await serve([finish("done")])
  const huge = JSON.stringify({ type: "prompt", text: "x".repeat(9 * 1024 * 1024) })
  const input = `${huge}\n{"type":"prompt","text":"go"}\n`
  const result = await clanka(["run", "--input", "ndjson", "-C", directory], { env, stdin: input, timeoutMs: 30_000 })
  expect(result.code).toBe(0)
  const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
  expect(events[0]).toEqual({
    _tag: "InputError",
    message: "input line 1: the line is longer than 8 MiB, the most one line may hold; it was skipped",
    line: 1,
  })
  expect(events.slice(1).map(brief)).toEqual(['AgentStart "go"', ...TURN, 'ScriptOutput "(no output)"', 'AgentFinished "done"'])
  expect(server!.requests.length).toBe(1)
})

test("a steer the run ended without giving the model (its last script was running) is not lost silently: one InputError after the run", async () => {
  const env = await serve([
    execute("console.log('started'); await sleep(1500); await taskComplete('done')"),
    (request: FakeRequest) => finish(`asked: ${request.lastUserText}`),
  ])
  const run = drive(["run", "--input", "ndjson"], env)
  run.send({ type: "prompt", text: "first" })
  await run.waitFor((event) => event._tag === "ScriptOutputDelta" && event.text === "started\n")
  run.send({ type: "steer", text: "also do X" })
  await run.waitFor((event) => event._tag === "AgentFinished")
  run.send({ type: "prompt", text: "second" })
  const { code } = await run.end()
  expect(code).toBe(0)
  expect(run.events.map(brief)).toEqual([
    'AgentStart "first"',
    ...TURN,
    'ScriptOutputDelta "started\\n"',
    'ScriptOutput "started\\n"',
    'AgentFinished "done"',
    "InputError 2 input line 2: the prompt ended before this steer reached the model; send it again as a prompt",
    'AgentStart "second"',
    ...TURN,
    'ScriptOutput "(no output)"',
    'AgentFinished "asked: second"',
  ])
})

test("a byte order mark before the first line (PowerShell, .NET writers) is not part of it: the first prompt runs", async () => {
  const env = await serve([finish("done")])
  const result = await clanka(["run", "--input", "ndjson", "-C", directory], { env, stdin: '\ufeff{"type":"prompt","text":"go"}\n' })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
  expect(events.map(brief)).toEqual(['AgentStart "go"', ...TURN, 'ScriptOutput "(no output)"', 'AgentFinished "done"'])
})

test("prompts waiting their turn are bounded: past 1,000 reading pauses (the writer is held, not memory)", async () => {
  const env = await serve([execute('await bash({ command: "sleep 30" })')])
  const child = Bun.spawn([BUN, MAIN, "run", "--input", "ndjson", "-C", directory], {
    cwd: directory,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdin: "pipe",
    stdout: "ignore",
    stderr: "pipe",
    timeout: 30_000,
  })
  child.stdin.write('{"type":"prompt","text":"first"}\n')
  await child.stdin.flush()
  const deadline = Date.now() + 15_000
  while (server!.requests.length === 0 && Date.now() < deadline) await Bun.sleep(50)
  expect(server!.requests.length).toBe(1)
  // Behind the running prompt, prompts of 1 KB in batches of 1 MB, for as long as clanka takes them.
  const batch = `${JSON.stringify({ type: "prompt", text: "x".repeat(1000) })}\n`.repeat(1024)
  let taken = 0
  const until = Date.now() + 3000
  while (Date.now() < until && taken < 64) {
    child.stdin.write(batch)
    const flushed = await Promise.race([Promise.resolve(child.stdin.flush()).then(() => true), Bun.sleep(until - Date.now()).then(() => false)])
    if (!flushed) break
    taken++
  }
  // 1,000 waiting prompts are ~1 MB; beyond them only what the pipe and the reader's chunks hold.
  expect(taken).toBeGreaterThanOrEqual(1)
  expect(taken).toBeLessThan(8)
  child.kill("SIGTERM")
  expect(await child.exited).toBe(130)
})
