// Conversation mode on a real terminal: `clanka run` with no prompt, under a pseudo-terminal
// (Bun.spawn's `terminal` option), typing as a user does. Waits poll the screen with a bound, so
// a slow machine makes the tests slower, not wrong.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, MAIN } from "../support/cli.ts"
import { startFakeModel, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { findProcess, isRunning, ownSleep } from "../support/processes.ts"
import { temporaryDirectory } from "../support/temp.ts"

const directory = temporaryDirectory("clanka-interactive-")
let server: FakeServer | undefined
let session: Session | undefined
afterEach(async () => {
  session?.kill()
  session = undefined
  await server?.close()
  server = undefined
})

const PROMPT = "› "
// Bounded waits inside each test fail it with what was seen; this only caps the whole test.
setDefaultTimeout(60_000)
const WAIT_MS = 15_000

/** clanka under a pseudo-terminal: what it shows (colours and cursor moves removed) and a keyboard. */
class Session {
  private raw = ""
  private readonly decoder = new TextDecoder()
  readonly process: ReturnType<typeof Bun.spawn>

  constructor(args: string[], env: Record<string, string>, command: string[] = [BUN, MAIN]) {
    this.process = Bun.spawn([...command, ...args], {
      cwd: directory,
      env: { ...process.env, ...env, NO_COLOR: "1" },
      terminal: {
        cols: 200,
        rows: 50,
        data: (_terminal, data) => {
          this.raw += this.decoder.decode(data, { stream: true })
        },
      },
    })
  }

  /**
   * The screen text so far, as lines would read: no escape sequences, no carriage returns. The
   * live region's erasing (cursor up to a line start, erase below) is applied, as a terminal does:
   * whether the region was drawn at all depends on timing.
   */
  get screen(): string {
    const lines = [""]
    let row = 0
    let col = 0
    // biome-ignore lint: matching terminal escape sequences
    for (const part of this.raw.split(/(\x1b\[[0-9;?]*[A-Za-z])/)) {
      const escape = /^\x1b\[([0-9;?]*)([A-Za-z])$/.exec(part)
      if (escape) {
        if (escape[2] === "F") {
          row = Math.max(0, row - Number(escape[1] || 1))
          col = 0
        } else if (escape[2] === "J" && (escape[1] || "0") === "0") {
          lines.length = row + 1
          lines[row] = lines[row]!.slice(0, col)
        }
        continue
      }
      for (const char of part) {
        if (char === "\r") continue
        if (char === "\n") {
          row++
          col = 0
          if (lines.length === row) lines.push("")
          continue
        }
        const line = lines[row]!
        lines[row] = line.slice(0, col) + char + line.slice(col + 1)
        col++
      }
    }
    return lines.join("\n")
  }

  type(text: string): void {
    this.process.terminal!.write(text)
  }

  /** Waits until the screen matches, beyond `from` characters of screen text. */
  async waitFor(what: string | RegExp, from = 0): Promise<number> {
    const deadline = Date.now() + WAIT_MS
    while (true) {
      const rest = this.screen.slice(from)
      const index = typeof what === "string" ? rest.indexOf(what) : rest.search(what)
      if (index !== -1) return from + index + (typeof what === "string" ? what.length : 0)
      if (Date.now() > deadline || this.process.exitCode !== null) {
        throw new Error(`the terminal never showed ${String(what)}; it shows:\n${this.screen}`)
      }
      await Bun.sleep(20)
    }
  }

  /** The exit code, or an error if clanka has not exited within the bound. */
  async exited(): Promise<number> {
    const code = await Promise.race([this.process.exited, Bun.sleep(WAIT_MS).then(() => "timeout" as const)])
    if (code === "timeout") throw new Error(`clanka did not exit; the terminal shows:\n${this.screen}`)
    return code
  }

  kill(): void {
    if (this.process.exitCode === null) this.process.kill("SIGKILL")
    this.process.terminal?.close()
  }
}

async function converse(turns: FakeTurn[]): Promise<Session> {
  server = await startFakeModel("anthropic", turns)
  session = new Session(["run", "-C", directory], { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5" })
  await session.waitFor(PROMPT)
  return session
}

const text = (answer: string): FakeTurn => ({ blocks: [{ type: "text", text: answer }] })

test("a text answer ends the turn; the next prompt carries the history; Ctrl-D leaves with exit 0", async () => {
  const term = await converse([text("Paris is the capital of France."), text("About 2.1 million people.")])
  expect(term.screen).toStartWith(`clanka · anthropic/claude-sonnet-4-5 · ${directory}\nType a request; /help lists the commands; Ctrl-C stops a turn, Ctrl-D leaves.\n`)

  term.type("What is the capital of France?\r")
  let seen = await term.waitFor("Paris is the capital of France.\n")
  // The turn is over without taskComplete: the prompt is back and no nudge was sent.
  seen = await term.waitFor(PROMPT, seen)
  await Bun.sleep(200)
  expect(server!.requests.length).toBe(1)
  expect(server!.requests[0]!.lastUserText).toBe("What is the capital of France?")
  expect(server!.requests[0]!.system).toContain("conversation")

  term.type("And how many live there?\r")
  seen = await term.waitFor("About 2.1 million people.\n", seen)
  await term.waitFor(PROMPT, seen)
  expect(server!.requests.length).toBe(2)
  expect(server!.requests[1]!.body.messages).toEqual([
    // Cache breakpoints sit on the newest user messages.
    { role: "user", content: [{ type: "text", text: "What is the capital of France?", cache_control: { type: "ephemeral" } }] },
    { role: "assistant", content: [{ type: "text", text: "Paris is the capital of France." }] },
    { role: "user", content: [{ type: "text", text: "And how many live there?", cache_control: { type: "ephemeral" } }] },
  ])

  term.type("\x04")
  expect(await term.exited()).toBe(0)
})

test("a line typed while a script runs steers: it reaches the model as a user message; /exit leaves", async () => {
  const gate = join(directory, "gate")
  rmSync(gate, { force: true })
  // The script waits for the test to open the gate, which it does once the steering line is typed.
  const waitForGate = 'let n = 0\nwhile (!(await readFile({ path: "gate" })) && n++ < 400) await sleep(50)\nconsole.log("gate open")'
  const term = await converse([{ blocks: [{ type: "execute", script: waitForGate }] }, text("Noted, tabs it is.")])

  term.type("format the code\r")
  let seen = await term.waitFor("▸ execute")
  seen = await term.waitFor('console.log("gate open")', seen)
  term.type("use tabs, not spaces\r")
  seen = await term.waitFor("use tabs, not spaces\n", seen)
  expect(existsSync(gate)).toBe(false)
  writeFileSync(gate, "open")
  seen = await term.waitFor("Noted, tabs it is.\n", seen)
  await term.waitFor(PROMPT, seen)

  expect(server!.requests.length).toBe(2)
  const second = server!.requests[1]!
  expect(second.toolResults).toEqual(["gate open\n"])
  expect(second.lastUserText).toBe("use tabs, not spaces")
  const messages = second.body.messages
  expect(messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "user"])
  // The tool result first, then the steering line, in the user message before the next turn.
  expect(messages[2].content.map((block: { type: string }) => block.type)).toEqual(["tool_result", "text"])

  term.type("/exit\r")
  expect(await term.exited()).toBe(0)
})

test("/help lists the commands and an unknown /word says so; neither reaches the model, a line starting with a path does", async () => {
  const term = await converse([text("Looking at it.")])

  term.type("/help\r")
  let seen = await term.waitFor("Commands and keys:\n")
  for (const row of ["/compact", "/exit, /quit", "Ctrl-C", "Ctrl-D"]) await term.waitFor(`  ${row} `, seen)
  seen = await term.waitFor(PROMPT, seen)

  term.type("/exti\r")
  seen = await term.waitFor("clanka: unknown command /exti; /help lists the commands\n", seen)
  seen = await term.waitFor(PROMPT, seen)
  term.type("/Compacting-Now\r")
  seen = await term.waitFor("clanka: unknown command /Compacting-Now; /help lists the commands\n", seen)
  seen = await term.waitFor(PROMPT, seen)
  expect(server!.requests.length).toBe(0)

  // A path is not a command: more words, or a second slash, and the line is a request.
  term.type("/src/foo.ts is broken\r")
  seen = await term.waitFor("Looking at it.\n", seen)
  await term.waitFor(PROMPT, seen)
  expect(server!.requests.map((request) => request.lastUserText)).toEqual(["/src/foo.ts is broken"])

  term.type("/exit\r")
  expect(await term.exited()).toBe(0)
  expect(server!.requests.length).toBe(1)
})

test("/compact or an unknown /word typed while a turn runs is answered on the terminal, not sent to steer the model", async () => {
  const gate = join(directory, "gate")
  rmSync(gate, { force: true })
  const waitForGate = 'let n = 0\nwhile (!(await readFile({ path: "gate" })) && n++ < 400) await sleep(50)\nconsole.log("gate open")'
  const term = await converse([{ blocks: [{ type: "execute", script: waitForGate }] }, text("Done.")])

  term.type("format the code\r")
  let seen = await term.waitFor('console.log("gate open")')
  term.type("/compact\r")
  seen = await term.waitFor("clanka: /compact works between turns: wait for this one to end, or stop it with Ctrl-C\n", seen)
  term.type("/nope\r")
  seen = await term.waitFor("clanka: unknown command /nope; /help lists the commands\n", seen)
  writeFileSync(gate, "open")
  seen = await term.waitFor("Done.\n", seen)
  await term.waitFor(PROMPT, seen)

  expect(server!.requests.length).toBe(2)
  expect(JSON.stringify(server!.requests[1]!.body.messages)).not.toMatch(/\/compact|\/nope/)
  term.type("\x04")
  expect(await term.exited()).toBe(0)
})

test("Ctrl-C stops the running turn and the conversation goes on; Ctrl-C when idle leaves", async () => {
  const term = await converse([
    { blocks: [{ type: "execute", script: 'console.log("started")\nawait sleep(60000)' }] },
    text("Stopped; what next?"),
  ])
  term.type("wait a minute\r")
  let seen = await term.waitFor("await sleep(60000)")
  await Bun.sleep(300)
  term.type("\x03")
  seen = await term.waitFor(PROMPT, seen)
  expect(term.process.exitCode).toBe(null)

  term.type("never mind\r")
  seen = await term.waitFor("Stopped; what next?\n", seen)
  await term.waitFor(PROMPT, seen)
  // The interrupted script's call is answered, so the provider accepts the history.
  const messages = server!.requests[1]!.body.messages
  expect(messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "user"])
  // The model is told what the script printed before the user stopped it.
  expect(messages[2].content[0]).toMatchObject({ type: "tool_result", content: "started\n[interrupted by the user]" })
  expect(messages[2].content.at(-1)).toMatchObject({ type: "text", text: "never mind" })

  term.type("\x03")
  expect(await term.exited()).toBe(0)
})

test("Ctrl-D while a script runs stops it, kills what it started, and leaves with exit 0", async () => {
  // The script runs in the executor's pid namespace, so its own $$ is not this machine's pid: the
  // sleeper is found by a command line no other process uses.
  const seconds = ownSleep("61.37")
  const term = await converse([{ blocks: [{ type: "execute", script: `await bash({ command: "exec sleep ${seconds}" })` }] }])
  term.type("start a sleeper\r")
  const seen = await term.waitFor(`exec sleep ${seconds}" })\n`)
  const deadline = Date.now() + WAIT_MS
  let pid: number | undefined
  while (!pid && Date.now() < deadline) {
    await Bun.sleep(20)
    pid = findProcess(["sleep", seconds])
  }
  expect(pid).toBeGreaterThan(0)
  term.type("\x04")
  expect(await term.exited()).toBe(0)
  // The script's output says it was stopped; the turn ends as interrupted, with one line and no
  // stack trace.
  expect(term.screen.slice(seen)).toMatch(
    /^10 in · 5 out · context 0% · \$0\.0001 · \d+ ms\n {2}\[interrupted by the user\]\nclanka: interrupted\n$/,
  )
  expect(isRunning(pid!)).toBe(false)
})

test("a line typed as the answer finishes is not lost: it reaches the model too", async () => {
  // The answer streams slowly, so the line is typed after its text block ended but before the
  // response did: too late to cut the stream, still inside the turn.
  const term = await converse([{ blocks: [{ type: "text", text: "Here is the plan." }], delayMs: 300 }, text("Adding tests too.")])
  term.type("plan it\r")
  const seen = await term.waitFor("Here is the plan.\n")
  term.type("and add tests\r")
  await term.waitFor("Adding tests too.\n", seen)
  expect(server!.requests.length).toBe(2)
  expect(server!.requests[1]!.lastUserText).toBe("and add tests")
  term.type("\x04")
  expect(await term.exited()).toBe(0)
})

test("run PROMPT on a terminal is a task, not a conversation, and prints pretty output on stdout", async () => {
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: 'console.log("checked")' }] },
    { blocks: [{ type: "execute", script: 'await taskComplete("All done.")' }] },
  ])
  // stdout (and stdin) on the terminal, stderr thrown away: what shows is what went to stdout.
  const stdoutOnly = ["sh", "-c", 'exec "$0" "$@" 2>/dev/null', BUN, MAIN]
  session = new Session(["run", "-C", directory, "check it"], { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5" }, stdoutOnly)
  expect(await session.exited()).toBe(0)
  // The terminal may hand over its last bytes just after the process exited.
  for (const deadline = Date.now() + 2000; !session.screen.endsWith("All done.\n") && Date.now() < deadline; ) await Bun.sleep(20)
  const time = String.raw`(\d+ ms|\d+(\.\d)? s)`
  expect(session.screen).toMatch(
    new RegExp(
      [
        `^● anthropic/claude-sonnet-4-5 in ${directory.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(sandbox: workspace-write, no network\\)`,
        "▸ execute",
        String.raw`│ console\.log\("checked"\)`,
        String.raw`10 in · 5 out · context 0% · \$0\.0001 · ${time}`,
        "  checked",
        "▸ execute",
        String.raw`│ await taskComplete\("All done\."\)`,
        String.raw`20 in · 10 out · context 0% · \$0\.0002 · ${time}`,
        String.raw`  \(no output\)`,
        String.raw`✓ done in ${time}, 2 turns, \$0\.0002`,
        String.raw`All done\.\n$`,
      ].join("\n"),
    ),
  )
  // A task: the system prompt asks for taskComplete; it does not say this is a conversation.
  expect(server.requests[0]!.system).toContain("call taskComplete(summary)")
  expect(server.requests[0]!.system).not.toContain("This is a conversation")
  expect(server.requests[0]!.lastUserText).toBe("check it")
})
