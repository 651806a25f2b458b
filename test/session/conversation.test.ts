// Sessions in conversation mode, on a real pseudo-terminal: --continue brings the saved history
// into a conversation; /compact summarises it between prompts; both are saved.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { BUN, MAIN } from "../support/cli.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"
import { clanka, events, finish, serve, transcript } from "./helpers.ts"

setDefaultTimeout(60_000)
const root = temporaryDirectory("clanka-conv-")
const workspace = join(root, "work")
mkdirSync(workspace)
let server: FakeServer | undefined
let child: ReturnType<typeof Bun.spawn> | undefined
afterEach(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL")
  child?.terminal?.close()
  child = undefined
  await server?.close()
  server = undefined
})

/** clanka on a pseudo-terminal: the screen without escape sequences, and a keyboard. */
function terminal(args: string[], env: Record<string, string>) {
  let raw = ""
  const decoder = new TextDecoder()
  child = Bun.spawn([BUN, MAIN, ...args], {
    cwd: workspace,
    env: { ...process.env, ...env, NO_COLOR: "1" },
    terminal: { cols: 200, rows: 50, data: (_t, data) => void (raw += decoder.decode(data, { stream: true })) },
  })
  const process_ = child
  const screen = () => raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "")
  return {
    screen,
    type: (text: string) => process_.terminal!.write(text),
    async waitFor(what: string, from = 0): Promise<number> {
      const deadline = Date.now() + 15_000
      while (true) {
        const index = screen().indexOf(what, from)
        if (index !== -1) return index + what.length
        if (Date.now() > deadline || process_.exitCode !== null) throw new Error(`never showed ${what}; screen:\n${screen()}`)
        await Bun.sleep(20)
      }
    },
    exited: () => process_.exited,
  }
}

const text = (answer: string): FakeTurn => ({ blocks: [{ type: "text", text: answer }] })

test("run --continue on a terminal converses on the saved history; /compact summarises it", async () => {
  const home = join(root, "home")
  const served = await serve(
    [
      { blocks: [{ type: "execute", script: 'console.log("built ok")' }] },
      finish("The build works."),
      // The conversation: a question, then /compact's summary request, then a question after it.
      text("It printed built ok."),
      text("Summary: the user built the project; it printed built ok."),
      text("Yes, still fine."),
    ],
    home,
  )
  server = served.server
  const task = await clanka(["run", "--json", "-C", workspace, "build it"], { env: served.env })
  const id = events(task)[0].sessionId

  const term = terminal(["run", "--continue"], served.env)
  let seen = await term.waitFor("› ")
  term.type("what did the build print?\r")
  seen = await term.waitFor("It printed built ok.\n", seen)
  seen = await term.waitFor("› ", seen)
  const asked = server.requests[2]!.body.messages
  expect(asked[0].content[0].text).toBe("build it")
  expect(asked.at(-1).content.at(-1).text).toBe("what did the build print?")

  term.type("/compact\r")
  seen = await term.waitFor("history compacted:", seen)
  seen = await term.waitFor("› ", seen)
  expect(server.requests[3]!.body.tools).toBeUndefined()

  term.type("still fine?\r")
  seen = await term.waitFor("Yes, still fine.\n", seen)
  await term.waitFor("› ", seen)
  const after = server.requests[4]!.body.messages
  expect(after[0].content.map((block: any) => block.text)).toEqual([
    "build it",
    "[Summary of the earlier part of this session, written when its history was compacted]\n\nSummary: the user built the project; it printed built ok.",
  ])
  expect(after.at(-1).content.at(-1).text).toBe("still fine?")
  term.type("/exit\r")
  expect(await term.exited()).toBe(0)

  // All of it in the one session: two more runs, the compaction, the resumed history.
  const lines = transcript(home, id)
  expect(lines.filter((line) => line.type === "event" && line.event._tag === "AgentStart").map((line) => line.event.resumedFrom)).toEqual([null, id, id])
  expect(lines.filter((line) => line.type === "compaction")).toHaveLength(1)
  expect(lines.filter((line) => line.type === "event" && line.event._tag === "Compaction")).toHaveLength(1)
  const listed = events(await clanka(["sessions", "--json"], { env: served.env, cwd: workspace }))
  expect(listed).toHaveLength(1)
  expect(listed[0]).toMatchObject({ id, status: "finished", turns: 4 })
  // Five responses paid for, /compact's summary among them (10 tokens in, 5 out at $3/$15 per million).
  expect(listed[0].costUsd).toBeCloseTo(5 * 0.000105, 9)
})
