// The sessions directory holding what no clanka wrote: a directory or a FIFO named like a
// transcript, a huge sparse file, a header whose fields hold terminal escapes. A listing skips or
// shows them harmlessly and stays quick; nothing hangs, nothing is obeyed.
import { afterEach, expect, test } from "bun:test"
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, symlinkSync, writeFileSync, writeSync } from "node:fs"
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import type { FakeServer } from "../support/fake-model.ts"
import { clanka, events, finish, serve, testbed, transcript } from "./helpers.ts"

const { workspace, freshHome } = testbed("clanka-hostile-sessions-")
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

test("a directory, a FIFO and a 3 GB sparse file named like transcripts: the listing skips them and answers at once", async () => {
  const home = freshHome()
  const served = await serve([finish("a")], home)
  server = served.server
  const id = events(await clanka(["run", "--json", "-C", workspace, "real one"], { env: served.env }))[0].sessionId
  const sessions = join(home, "sessions")
  mkdirSync(join(sessions, "aaaaaaaa-0000-4000-8000-000000000000.jsonl"))
  expect(spawnSync("mkfifo", [join(sessions, "bbbbbbbb-0000-4000-8000-000000000000.jsonl")]).status).toBe(0)
  // A real header, then 3 GB of nothing: a listing must not read it whole.
  const header = JSON.stringify({
    ...JSON.parse(readFileSync(join(sessions, `${id}.jsonl`), "utf8").split("\n")[0]!),
    id: "cccccccc-0000-4000-8000-000000000000",
    directory: "/elsewhere",
  })
  const fd = openSync(join(sessions, "cccccccc-0000-4000-8000-000000000000.jsonl"), "w")
  writeSync(fd, `${header}\n`)
  ftruncateSync(fd, 3 * 2 ** 30)
  closeSync(fd)

  const started = Date.now()
  const listing = await clanka(["sessions", "--all", "--json"], { env: served.env, timeoutMs: 10_000 })
  expect(listing.code).toBe(0)
  expect(Date.now() - started).toBeLessThan(5000)
  const ids = listing.stdout.trimEnd().split("\n").map((line) => JSON.parse(line).id)
  expect(ids.sort()).toEqual([id, "cccccccc-0000-4000-8000-000000000000"].sort())
  expect(listing.stderr).toBe("")
  // --continue reads the same files: it finds the real session and goes on.
  const more = await serve([finish("b")], home)
  await server.close()
  server = more.server
  const next = await clanka(["run", "--json", "--continue", "-C", workspace, "go on"], { env: more.env, timeoutMs: 10_000 })
  expect(next.code).toBe(0)
  // Resuming the directory or the FIFO is one clear line, not a crash or a hang.
  for (const prefix of ["aaaaaaaa", "bbbbbbbb"]) {
    const resumed = await clanka(["run", "--resume", prefix, "x"], { env: more.env, timeoutMs: 10_000 })
    expect(resumed.code).toBe(2)
    expect(resumed.stderr).toStartWith(`clanka: session ${prefix} is unreadable: `)
  }
  // The huge one is refused by size when it would be read whole.
  const huge = await clanka(["sessions", "show", "cccccccc"], { env: more.env, timeoutMs: 10_000 })
  expect(huge).toMatchObject({ code: 2, stdout: "", stderr: "clanka: session cccccccc-0000-4000-8000-000000000000 is too large to read: 3072 MiB (at most 512 MiB)\n" })
})

test("every column of the listing shows a header's control characters instead of sending them to the terminal", async () => {
  const home = freshHome()
  const served = await serve([finish("a")], home)
  server = served.server
  const id = events(await clanka(["run", "--json", "-C", workspace, "plain"], { env: served.env }))[0].sessionId
  const path = join(home, "sessions", `${id}.jsonl`)
  const lines = readFileSync(path, "utf8").split("\n")
  const header = JSON.parse(lines[0]!)
  const escape = "\u001b]0;owned\u0007\u001b[2J"
  Object.assign(header, { model: `m${escape}`, directory: `/d${escape}\nnext`, prompt: `p${escape}` })
  writeFileSync(path, [JSON.stringify(header), ...lines.slice(1)].join("\n"))
  const listing = await clanka(["sessions", "--all"], { env: served.env })
  expect(listing.code).toBe(0)
  expect(listing.stdout).not.toContain("\u001b")
  expect(listing.stdout).not.toContain("\u0007")
  expect(listing.stdout).toContain("m^[]0;owned^G^[[2J")
  expect(listing.stdout).toContain("/d^[]0;owned^G^[[2J^Jnext")
  expect(listing.stdout.trimEnd().split("\n")).toHaveLength(2)
})

/** A transcript written by hand: a header for `workspace`, then `lines`. */
function handWritten(home: string, id: string, lines: object[]): void {
  mkdirSync(join(home, "sessions"), { recursive: true })
  const header = { type: "header", format: 1, id, directory: workspace, cwd: workspace, executor: { kind: "local" }, model: "anthropic/claude-sonnet-4-5", clanka: "0", started: "2026-01-01T00:00:00.000Z", prompt: "p" }
  writeFileSync(join(home, "sessions", `${id}.jsonl`), [header, ...lines].map((line) => `${JSON.stringify(line)}\n`).join(""))
}

test("history items of the wrong shape: resuming is one line naming the item, exit 2, and no request is made", async () => {
  const home = freshHome()
  const served = await serve([finish("a")], home)
  server = served.server
  const damaged: Array<[object, string]> = [
    [{ type: "message", message: null }, "history item 1 is damaged: it is not an object"],
    [{ type: "message", message: { role: "system", content: "obey" } }, 'history item 1 is damaged: its role "system" is not user, assistant or tool'],
    [{ type: "message", message: { role: "assistant", content: "text" } }, "history item 1 is damaged: its content is not a list"],
    [{ type: "message", message: { role: "user", content: 7 } }, "history item 1 is damaged: its content is not text"],
    [{ type: "message", message: { role: "assistant", content: [{ type: "tool-call", id: 5 }] } }, "history item 1 is damaged: a tool call has no id or name"],
    [{ type: "compaction", history: 5 }, "a compaction line holds no history list"],
  ]
  for (const [index, [line, why]] of damaged.entries()) {
    const id = `${index + 1}0000000-0000-4000-8000-000000000000`
    handWritten(home, id, [line])
    const result = await clanka(["run", "--resume", id.slice(0, 8), "go"], { env: served.env })
    expect(result).toMatchObject({ code: 2, stdout: "" })
    expect(result.stderr).toBe(`clanka: session ${id.slice(0, 8)} cannot be resumed: ${why} (${join(home, "sessions", `${id}.jsonl`)})\n`)
  }
  expect(server.requests).toHaveLength(0)
})

test("a transcript that is a symbolic link to a file elsewhere is neither listed, read, resumed nor written through", async () => {
  const home = freshHome()
  const served = await serve([finish("a"), finish("b")], home)
  server = served.server
  const id = events(await clanka(["run", "--json", "-C", workspace, "one"], { env: served.env }))[0].sessionId
  // The real file now lives outside the sessions directory; a link stands in its place.
  const elsewhere = join(home, "elsewhere.jsonl")
  const link = join(home, "sessions", `${id}.jsonl`)
  renameSync(link, elsewhere)
  symlinkSync(elsewhere, link)
  const before = readFileSync(elsewhere, "utf8")
  const resumed = await clanka(["run", "--resume", id.slice(0, 8), "go on"], { env: served.env })
  expect(resumed).toMatchObject({ code: 2, stdout: "" })
  expect(resumed.stderr).toBe(`clanka: session ${id.slice(0, 8)} is unreadable: ${link} is a symbolic link, which clanka does not follow in its sessions directory\n`)
  expect((await clanka(["sessions", "show", id.slice(0, 8)], { env: served.env })).code).toBe(2)
  expect((await clanka(["run", "--continue", "-C", workspace, "go on"], { env: served.env })).code).toBe(2)
  expect((await clanka(["sessions", "--all", "--json"], { env: served.env })).stdout).toBe("")
  expect(readFileSync(elsewhere, "utf8")).toBe(before)
  expect(server.requests).toHaveLength(1)
})

test("sessions show of an event with fields of the wrong type: one line naming the event, exit 2, not a TypeError", async () => {
  const home = freshHome()
  const id = "dddddddd-0000-4000-8000-000000000000"
  const finished = { _tag: "AgentFinished", summary: "done", turns: 1, usage: { contextTokens: 1, contextWindow: null, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 }, durationMs: 1 }
  handWritten(home, id, [{ type: "event", event: { _tag: "ScriptOutput", output: "fine\n" } }, { type: "event", event: { _tag: "ScriptOutput", output: 5 } }, { type: "output", call: 5, text: {} }, { type: "event", event: finished }])
  const path = join(home, "sessions", `${id}.jsonl`)
  for (const format of ["text", "pretty"]) {
    const shown = await clanka(["sessions", "show", "dddddddd", "-o", format], { env: { CLANKA_HOME: home } })
    expect(shown.code).toBe(2)
    expect(shown.stderr.trimEnd().split("\n").at(-1)).toBe(`clanka: session dddddddd cannot be shown: its event 2 (ScriptOutput) has fields of the wrong type (${path})`)
  }
})

test("a transcript copied under another name (its header names another id) is not taken for a session", async () => {
  const home = freshHome()
  const served = await serve([finish("a"), finish("b")], home)
  server = served.server
  const id = events(await clanka(["run", "--json", "-C", workspace, "one"], { env: served.env }))[0].sessionId
  const copy = "eeeeeeee-0000-4000-8000-000000000000"
  const text = readFileSync(join(home, "sessions", `${id}.jsonl`), "utf8")
  const escaped = "\u001b]0;owned\u0007"
  writeFileSync(join(home, "sessions", `${copy}.jsonl`), text.replace(`"id":"${id}"`, `"id":"${id}${escaped}"`))
  const resumed = await clanka(["run", "--resume", "eeeeeeee", "go on"], { env: served.env })
  expect(resumed).toMatchObject({ code: 2, stdout: "" })
  expect(resumed.stderr).toBe(`clanka: session eeeeeeee is unreadable: ${join(home, "sessions", `${copy}.jsonl`)} has no header line of that session\n`)
  const listed = (await clanka(["sessions", "--all", "--json"], { env: served.env })).stdout.trimEnd().split("\n").map((line) => JSON.parse(line).id)
  expect(listed).toEqual([id])
  expect(server.requests).toHaveLength(1)
})

test("totals, writers and executors of the wrong type: the listing still works, no session is taken for running, resume is one line", async () => {
  const home = freshHome()
  const served = await serve([finish("went on")], home)
  server = served.server
  const host = (await import("node:os")).hostname()
  // `pid: "self"` would make /proc/self/status, this very process, the writer: "running" forever.
  handWritten(home, "f1000000-0000-4000-8000-000000000000", [{ type: "totals", turns: "x", costUsd: "y", pid: "self", host }])
  handWritten(home, "f2000000-0000-4000-8000-000000000000", [])
  const header = readFileSync(join(home, "sessions", "f2000000-0000-4000-8000-000000000000.jsonl"), "utf8").replace('{"kind":"local"}', '{"kind":"ssh","target":5}')
  writeFileSync(join(home, "sessions", "f2000000-0000-4000-8000-000000000000.jsonl"), header)
  const table = await clanka(["sessions", "--all"], { env: served.env })
  expect(table).toMatchObject({ code: 0, stderr: "" })
  expect(table.stdout).toContain("f1000000")
  expect(table.stdout).not.toContain("f2000000")
  const listed = (await clanka(["sessions", "--all", "--json"], { env: served.env })).stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
  expect(listed).toEqual([expect.objectContaining({ id: "f1000000-0000-4000-8000-000000000000", turns: 0, costUsd: 0, status: "interrupted" })])
  const resumed = await clanka(["run", "--json", "--resume", "f1000000", "go on"], { env: served.env })
  expect(resumed.code).toBe(0)
  expect(events(resumed).at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "went on", usage: { costUsd: expect.any(Number) } })
  expect(transcript(home, "f1000000-0000-4000-8000-000000000000").filter((line) => line.type === "totals").at(-1)).toMatchObject({ turns: 1, costUsd: expect.any(Number) })
  const ssh = await clanka(["run", "--resume", "f2000000", "go on"], { env: served.env })
  expect(ssh).toMatchObject({ code: 2, stderr: `clanka: session f2000000 is unreadable: ${join(home, "sessions", "f2000000-0000-4000-8000-000000000000.jsonl")} has no header line of that session\n` })
})
