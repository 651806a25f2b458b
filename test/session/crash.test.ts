// Item 3 of sessions: a real `clanka run` killed with SIGKILL — in the middle of a streamed
// response, and in the middle of a running script — is resumed from its last complete turn.
import { afterEach, expect, test } from "bun:test"
import { appendFileSync, existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, MAIN } from "../support/cli.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { clanka, events, finish, historyOf, serve, testbed } from "./helpers.ts"

const { workspace, freshHome } = testbed("clanka-crash-")
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

/** Starts `clanka run --json`, waits until `ready(stdout, transcript)` holds, then kills it with SIGKILL. */
async function runAndKill(args: string[], env: Record<string, string>, home: string, ready: (stdout: string, transcript: string) => boolean) {
  const child = Bun.spawn([BUN, MAIN, "run", "--json", ...args], { env: { ...process.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "ignore" })
  let stdout = ""
  const decoder = new TextDecoder()
  void (async () => {
    for await (const chunk of child.stdout) stdout += decoder.decode(chunk)
  })()
  const deadline = Date.now() + 15_000
  const file = () => {
    const id = stdout.match(/"sessionId":"([^"]+)"/)?.[1]
    const path = id && join(home, "sessions", `${id}.jsonl`)
    return path && existsSync(path) ? readFileSync(path, "utf8") : ""
  }
  while (!ready(stdout, file())) {
    if (Date.now() > deadline) throw new Error(`never ready; stdout:\n${stdout}`)
    await Bun.sleep(20)
  }
  child.kill("SIGKILL")
  await child.exited
  return { id: stdout.match(/"sessionId":"([^"]+)"/)![1]!, stdout }
}

test("killed in the middle of a streamed response: the cut response is dropped, the run resumes after the last complete turn", async () => {
  const home = freshHome()
  const served = await serve(
    [
      { blocks: [{ type: "execute", script: 'console.log("turn one ran")' }] },
      // The second response streams some text and a part of a script, then hangs.
      { stall: { blocks: [{ type: "text", text: "Half a thought" }, { type: "execute", script: "console.log('never')", chunks: 3 }] } },
      finish("resumed fine"),
    ],
    home,
  )
  server = served.server
  const { id } = await runAndKill(["-C", workspace, "work hard"], served.env, home, (stdout) => stdout.includes("Half a thought"))
  // The process is gone and never ended its run: interrupted.
  const listed = events(await clanka(["sessions", "--json"], { env: served.env, cwd: workspace }))
  expect(listed[0]).toMatchObject({ id, status: "interrupted", turns: 1 })

  const resumed = await clanka(["run", "--json", "--resume", id, "go on"], { env: served.env })
  expect(resumed.stderr).toBe("")
  expect(resumed.code).toBe(0)
  expect(historyOf(server.requests[2]!.body)).toEqual(["user: work hard", 'call: console.log("turn one ran")', "result: turn one ran\n", "user: go on"])
  expect(events(resumed).at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "resumed fine" })
})

test("killed while a script runs: the script is in history with the output it printed; a cut-off last line is ignored", async () => {
  const home = freshHome()
  const served = await serve(
    [
      { blocks: [{ type: "execute", script: 'console.log("step 1 done"); await sleep(60000); console.log("step 2")' }] },
      finish("resumed after the kill"),
    ],
    home,
  )
  server = served.server
  const { id } = await runAndKill(["-C", workspace, "long job"], served.env, home, (_, transcript) => transcript.includes('"type":"output"'))
  // A write cut off by the crash: half a line at the end of the file.
  const path = join(home, "sessions", `${id}.jsonl`)
  appendFileSync(path, '{"type":"event","event":{"_tag":"Scri')

  const resumed = await clanka(["run", "--json", "--resume", id, "what happened?"], { env: served.env })
  expect(resumed.stderr).toBe("")
  expect(resumed.code).toBe(0)
  expect(historyOf(server.requests[1]!.body)).toEqual([
    "user: long job",
    'call: console.log("step 1 done"); await sleep(60000); console.log("step 2")',
    "result: step 1 done\n[clanka was stopped while this script ran; it may not have finished]",
    "user: what happened?",
  ])
  // The cut line is gone and every line of the file is whole JSON again.
  const lines = readFileSync(path, "utf8").split("\n")
  expect(lines.at(-1)).toBe("")
  for (const line of lines.slice(0, -1)) expect(() => JSON.parse(line)).not.toThrow()
  expect(events(await clanka(["sessions", "--json"], { env: served.env, cwd: workspace }))[0]).toMatchObject({ id, status: "finished", turns: 2 })
})

test("a session still running in another clanka is listed as running and cannot be resumed", async () => {
  const home = freshHome()
  const served = await serve([{ stall: { blocks: [{ type: "text", text: "thinking…" }] } }], home)
  server = served.server
  const child = Bun.spawn([BUN, MAIN, "run", "--json", "-C", workspace, "hang"], { env: { ...process.env, ...served.env }, stdin: "ignore", stdout: "pipe", stderr: "ignore" })
  try {
    const reader = child.stdout.getReader()
    let stdout = ""
    while (!stdout.includes("thinking")) stdout += new TextDecoder().decode((await reader.read()).value)
    const id = stdout.match(/"sessionId":"([^"]+)"/)![1]!
    expect(events(await clanka(["sessions", "--json"], { env: served.env, cwd: workspace }))[0]).toMatchObject({ id, status: "running" })
    const again = await clanka(["run", "--resume", id, "x"], { env: served.env })
    expect(again).toMatchObject({ code: 2, stderr: `clanka: session ${id} is in use by another clanka (still running); wait for it to end, or --fork it\n` })
  } finally {
    child.kill("SIGKILL")
    await child.exited
  }
})

test("killed while a script runs, then killed again before the resumed run's first response: the script's result still follows its call", async () => {
  const home = freshHome()
  const served = await serve(
    [
      { blocks: [{ type: "execute", script: 'console.log("step 1 done"); await sleep(60000)' }] },
      { stall: { blocks: [{ type: "text", text: "Resuming now" }] } },
      finish("third time lucky"),
    ],
    home,
  )
  server = served.server
  const { id } = await runAndKill(["-C", workspace, "long job"], served.env, home, (_, transcript) => transcript.includes('"type":"output"'))
  await runAndKill(["--resume", id, "go on"], served.env, home, (stdout) => stdout.includes("Resuming now"))
  const resumed = await clanka(["run", "--json", "--resume", id, "third"], { env: served.env })
  expect(resumed.code).toBe(0)
  // Every provider wants a call's result right after it: never after a later user message.
  expect(historyOf(server.requests[2]!.body)).toEqual([
    "user: long job",
    'call: console.log("step 1 done"); await sleep(60000)',
    "result: step 1 done\n[clanka was stopped while this script ran; it may not have finished]",
    "user: go on",
    "user: third",
  ])
})
