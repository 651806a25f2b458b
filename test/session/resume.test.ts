// Item 2 of sessions: --resume, --continue, --fork; `clanka sessions` and `sessions show`.
import { afterEach, expect, test } from "bun:test"
import { appendFileSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fromSubagent, type FakeServer } from "../support/fake-model.ts"
import { BUN, MAIN } from "../support/cli.ts"
import { clanka, events, finish, historyOf, serve, sessionFiles, testbed, transcript } from "./helpers.ts"

const { root, workspace, freshHome } = testbed("clanka-resume-", ["other"])
const other = join(root, "other")
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

test("--resume ID (a prefix) goes on with the same session: full history, new prompt last, same id", async () => {
  const home = freshHome()
  const served = await serve([{ blocks: [{ type: "execute", script: 'console.log("seen")' }] }, finish("first done"), finish("second done")], home)
  server = served.server
  const first = events(await clanka(["run", "--json", "-C", workspace, "do one"], { env: served.env }))
  const id = first[0].sessionId
  const result = await clanka(["run", "--json", "--resume", id.slice(0, 6), "do two"], { env: served.env, cwd: other })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const second = events(result)
  // Same session, resumed from itself, in the session's directory (not the cwd).
  expect(second[0]).toMatchObject({ _tag: "AgentStart", sessionId: id, resumedFrom: id, prompt: "do two", directory: workspace })
  expect(historyOf(server.requests[2]!.body)).toEqual([
    "user: do one",
    'call: console.log("seen")',
    "result: seen\n",
    'call: await taskComplete("first done")',
    "result: (no output)",
    "user: do two",
  ])
  expect(sessionFiles(home)).toEqual([`${id}.jsonl`])
  const lines = transcript(home, id)
  expect(lines.filter((line) => line.type === "open")).toHaveLength(2)
  expect(lines.filter((line) => line.type === "event" && line.event._tag === "AgentStart")).toHaveLength(2)
  // The run's totals, then the writer letting go of the file.
  expect(lines.at(-2)).toEqual({ type: "totals", turns: 3, costUsd: expect.any(Number), pid: expect.any(Number), host: expect.any(String) })
  expect(lines.at(-1)).toEqual({ type: "close", at: expect.any(String) })

  const list = await clanka(["sessions", "--json"], { env: served.env, cwd: workspace })
  expect(list.code).toBe(0)
  const [row] = events(list)
  expect(row).toMatchObject({ id, directory: workspace, model: "anthropic/claude-sonnet-4-5", turns: 3, status: "finished", prompt: "do one" })
  expect(row.costUsd).toBeCloseTo(first.at(-1).usage.costUsd + second.at(-1).usage.costUsd, 6)
})

test("--continue takes the newest session of this directory; --fork copies one into a new id", async () => {
  const home = freshHome()
  const served = await serve([finish("a"), finish("b"), finish("c"), finish("d"), finish("e"), finish("f"), finish("g")], home)
  server = served.server
  const a = events(await clanka(["run", "--json", "-C", workspace, "in work"], { env: served.env }))[0].sessionId
  const b = events(await clanka(["run", "--json", "-C", other, "in other"], { env: served.env }))[0].sessionId
  const continued = events(await clanka(["run", "--json", "--continue", "more work"], { env: served.env, cwd: workspace }))
  expect(continued[0]).toMatchObject({ sessionId: a, resumedFrom: a, directory: workspace })
  expect(historyOf(server.requests[2]!.body)[0]).toBe("user: in work")

  const before = readFileSync(join(home, "sessions", `${b}.jsonl`), "utf8")
  const forked = events(await clanka(["run", "--json", "--fork", b, "try another way"], { env: served.env }))
  const forkId = forked[0].sessionId
  expect(forkId).not.toBe(b)
  expect(forked[0]).toMatchObject({ resumedFrom: b, directory: other })
  expect(historyOf(server.requests[3]!.body)).toEqual(["user: in other", 'call: await taskComplete("b")', "result: (no output)", "user: try another way"])
  expect(readFileSync(join(home, "sessions", `${b}.jsonl`), "utf8")).toBe(before)
  expect(transcript(home, forkId)[0]).toMatchObject({ type: "header", id: forkId, forkedFrom: b, prompt: "in other", directory: other })

  // The listing: this directory's sessions by default, every one with --all, newest first.
  const here = await clanka(["sessions"], { env: served.env, cwd: other })
  expect(here.stdout.split("\n")[0]).toMatch(/^ID +STARTED +STATUS +TURNS +COST +MODEL +PROMPT$/)
  const rows = here.stdout.trimEnd().split("\n").slice(1)
  expect(rows.map((row) => row.slice(0, 8))).toEqual([forkId.slice(0, 8), b.slice(0, 8)])
  expect(rows[0]).toMatch(/^[0-9a-f]{8}  \d+ s ago +finished +2 +\$0\.\d{4} +anthropic\/claude-sonnet-4-5 +in other$/)
  const all = events(await clanka(["sessions", "--json", "--all"], { env: served.env, cwd: root }))
  expect(all.map((row) => row.id)).toEqual([forkId, b, a])
  const none = await clanka(["sessions"], { env: served.env, cwd: root })
  expect(none.stdout).toBe("")
  expect(none.stderr).toContain("no sessions of")

  // Nothing to continue here: exit 2 with one line.
  const nothing = await clanka(["run", "--continue", "x"], { env: served.env, cwd: root })
  expect(nothing.code).toBe(2)
  expect(nothing.stderr).toMatch(/^clanka: no session to continue for .* \(see clanka sessions --all\)\n$/)

  // The newest is the one used last: b, resumed after its fork started, is what --continue takes.
  await Bun.sleep(20)
  expect((await clanka(["run", "--json", "--resume", b, "back to b"], { env: served.env })).code).toBe(0)
  const again = events(await clanka(["run", "--json", "--continue", "and more"], { env: served.env, cwd: other }))
  expect(again[0]).toMatchObject({ sessionId: b, resumedFrom: b })
})

test("sessions show replays a transcript through the chosen formatter", async () => {
  const home = freshHome()
  const served = await serve([{ blocks: [{ type: "text", text: "Looking." }, { type: "execute", script: 'console.log("hi")' }] }, finish("all good")], home)
  server = served.server
  const run = await clanka(["run", "--json", "-C", workspace, "say hi"], { env: served.env })
  const id = events(run)[0].sessionId
  const json = await clanka(["sessions", "show", id.slice(0, 8), "--json"], { env: served.env })
  expect(json.code).toBe(0)
  expect(json.stdout).toBe(run.stdout)
  const text = await clanka(["sessions", "show", id, "-o", "text"], { env: served.env })
  expect(text.stdout).toBe("all good\n")
  expect(text.stderr).toContain("▸ execute")
  expect(text.stderr).toContain("Looking.")
})

test("bad session arguments: one line, exit 2", async () => {
  const home = freshHome()
  const served = await serve([finish("a"), finish("b")], home)
  server = served.server
  const missing = await clanka(["run", "--resume", "abcdef", "x"], { env: served.env })
  expect(missing).toMatchObject({ code: 2, stdout: "" })
  expect(missing.stderr).toBe(`clanka: no session abcdef in ${join(home, "sessions")} (see clanka sessions --all)\n`)
  const notId = await clanka(["sessions", "show", "../x"], { env: served.env })
  expect(notId).toMatchObject({ code: 2, stderr: 'clanka: "../x" is not a session id (see clanka sessions)\n' })
  const both = await clanka(["run", "--continue", "--fork", "ab", "x"], { env: served.env })
  expect(both).toMatchObject({ code: 2, stderr: "clanka: --continue and --fork each choose the session to go on from; pass only one\n" })
  const noSave = await clanka(["run", "--no-session", "--resume", "ab", "x"], { env: served.env })
  expect(noSave).toMatchObject({ code: 2, stderr: "clanka: --no-session cannot be used with --resume: a resumed session is saved as it goes on\n" })
  const noSaveEnv = await clanka(["run", "--continue", "x"], { env: { ...served.env, CLANKA_NO_SESSION: "1" } })
  expect(noSaveEnv).toMatchObject({
    code: 2,
    stderr: "clanka: CLANKA_NO_SESSION is set, which --continue cannot honour: a resumed session is saved as it goes on; unset it\n",
  })
  // Two sessions whose ids share a prefix: the prefix is refused as ambiguous.
  const id = events(await clanka(["run", "--json", "-C", workspace, "one"], { env: served.env }))[0].sessionId
  const other = id[4] === "0" ? "1" : "0"
  const twin = `${id.slice(0, 4)}${other.repeat(4)}-0000-4000-8000-000000000000`
  const text = readFileSync(join(home, "sessions", `${id}.jsonl`), "utf8").replaceAll(id, twin)
  writeFileSync(join(home, "sessions", `${twin}.jsonl`), text)
  const ambiguous = await clanka(["sessions", "show", id.slice(0, 4)], { env: served.env })
  expect(ambiguous.code).toBe(2)
  expect(ambiguous.stderr).toStartWith(`clanka: session id ${id.slice(0, 4)} is ambiguous: it starts 2 sessions (`)
  expect((await clanka(["sessions", "show", id.slice(0, 5), "--json"], { env: served.env })).code).toBe(0)
  // A session whose responses had no known price lists its cost as unknown, not as $0.
  appendFileSync(join(home, "sessions", `${id}.jsonl`), `${JSON.stringify({ type: "totals", turns: 2, costUsd: null, pid: 1, host: "x" })}\n`)
  const priced = (await clanka(["sessions", "--all", "--json"], { env: served.env })).stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line))
  expect(priced.find((session) => session.id === id)).toMatchObject({ turns: 2, costUsd: null })
  // A file whose header this clanka cannot use (another format, damage) is left out, not a crash.
  writeFileSync(join(home, "sessions", "33333333-0000-4000-8000-000000000000.jsonl"), '{"type":"header","format":99,"id":"33333333-0000-4000-8000-000000000000"}\n')
  const listing = await clanka(["sessions", "--all", "--json"], { env: served.env })
  expect(listing.code).toBe(0)
  expect(listing.stdout).not.toContain("33333333")
  expect(await clanka(["run", "--resume", "33333333", "x"], { env: served.env })).toMatchObject({
    code: 2,
    stderr: `clanka: session 33333333 is unreadable: ${join(home, "sessions", "33333333-0000-4000-8000-000000000000.jsonl")} has no header line of that session\n`,
  })
  const action = await clanka(["sessions", "delete", "x"], { env: served.env })
  expect(action).toMatchObject({ code: 2, stderr: 'clanka: unknown sessions action "delete": use clanka sessions, or clanka sessions show ID\n' })
})

test("a resumed --executor session runs its command only when the user names it again; a failed run lists as failed", async () => {
  const home = freshHome()
  const served = await serve([{ error: { status: 400, message: "bad request" } }, finish("done")], home)
  server = served.server
  const command = `${BUN} ${MAIN} executor -C ${workspace}`
  const failed = await clanka(["run", "--json", "--executor", command, "go"], { env: served.env, cwd: other })
  expect(failed.code).toBe(1)
  const id = events(failed)[0].sessionId
  expect(events(await clanka(["sessions", "--json"], { env: served.env, cwd: other }))[0]).toMatchObject({ id, status: "failed", executor: { kind: "command", command } })
  // The transcript names a shell command: resuming does not run it on the file's word.
  const refused = await clanka(["run", "--json", "--resume", id, "again"], { env: served.env, cwd: root })
  expect(refused.code).toBe(2)
  expect(refused.stderr).toEndWith(
    `clanka: session ${id.slice(0, 8)} ran its scripts through --executor ${JSON.stringify(command)}; to run that command again, pass it: --executor ${JSON.stringify(command)}\n`,
  )
  const resumed = await clanka(["run", "--json", "--resume", id, "--executor", command, "again"], { env: served.env, cwd: root })
  expect(resumed.code).toBe(0)
  expect(events(resumed)[0]).toMatchObject({ sessionId: id, directory: workspace })
  expect(historyOf(server.requests[1]!.body)).toEqual(["user: go", "user: again"])
  expect(events(await clanka(["sessions", "--json", "--all"], { env: served.env }))[0]).toMatchObject({ id, status: "finished", turns: 1 })
})

test("a session's totals include its sub-agents, across resumed runs", async () => {
  const home = freshHome()
  const priced = (request: any) =>
    fromSubagent(request)
      ? { ...finish("sub done"), usage: { input: 1000, output: 0 } }
      : request.toolResults.length === 0
        ? { blocks: [{ type: "execute" as const, script: 'console.log(await delegate("look"))' }], usage: { input: 1000, output: 0 } }
        : { ...finish("parent done"), usage: { input: 1000, output: 0 } }
  const served = await serve([priced, priced, priced, priced, priced, priced], home)
  server = served.server
  const first = events(await clanka(["run", "--json", "-C", workspace, "delegate"], { env: served.env }))
  // Three responses of 1,000 input tokens at $3 per million: $0.009, one of them the sub-agent's.
  expect(first.at(-1).usage.costUsd).toBeCloseTo(0.009, 6)
  const id = first[0].sessionId
  const second = events(await clanka(["run", "--json", "--resume", id, "again"], { env: served.env }))
  // The resumed run's last message carries a tool result: the parent finishes at once.
  expect(second.at(-1).usage.costUsd).toBeCloseTo(0.003, 6)
  const [row] = events(await clanka(["sessions", "--json"], { env: served.env, cwd: workspace }))
  expect(row).toMatchObject({ id, turns: 3 })
  expect(row.costUsd).toBeCloseTo(0.012, 6)
})

test("a prompt cut at 200 characters for the listing is cut between characters: sessions --json stays valid for strict parsers", async () => {
  const home = freshHome()
  const served = await serve([finish("done")], home)
  server = served.server
  // The emoji (two UTF-16 units) straddles the cut at 199.
  const prompt = `${"a".repeat(198)}😀 and more`
  expect((await clanka(["run", "--json", "-C", workspace, prompt], { env: served.env })).code).toBe(0)
  const list = await clanka(["sessions", "--json"], { env: served.env, cwd: workspace })
  expect(list.stdout).not.toMatch(/\\ud[89a-f]/)
  const [row] = events(list)
  expect(row.prompt.isWellFormed()).toBe(true)
  expect(row.prompt).toBe(`${"a".repeat(198)}…`)
})

test("three clanka resuming one session at the same moment: one goes on, the others are refused (exit 2), the transcript has one run", async () => {
  const home = freshHome()
  const slow = { ...finish("again"), delayMs: 1500 }
  const served = await serve([finish("first"), slow, slow, slow], home)
  server = served.server
  const id = events(await clanka(["run", "--json", "-C", workspace, "one"], { env: served.env }))[0].sessionId
  const results = await Promise.all(["x", "y", "z"].map((prompt) => clanka(["run", "--resume", id.slice(0, 8), prompt], { env: served.env })))
  expect(results.map((result) => result.code).sort()).toEqual([0, 2, 2])
  for (const refused of results.filter((result) => result.code === 2)) {
    expect(refused.stderr).toBe(`clanka: session ${id} is in use by another clanka (still running); wait for it to end, or --fork it\n`)
  }
  const lines = transcript(home, id)
  expect(lines.filter((line) => line.type === "event" && line.event._tag === "AgentStart")).toHaveLength(2)
  expect(lines.filter((line) => line.type === "open")).toHaveLength(2)
  expect(sessionFiles(home)).toEqual([`${id}.jsonl`])
})

test("a claim left by a killed clanka does not block a resume; one held by a live process is waited for, then named", async () => {
  const home = freshHome()
  const served = await serve([finish("first"), finish("again")], home)
  server = served.server
  const id = events(await clanka(["run", "--json", "-C", workspace, "one"], { env: served.env }))[0].sessionId
  const host = (await import("node:os")).hostname()
  const lock = join(home, "sessions", `${id}.jsonl.lock`)
  // A live process of this host holds it (this test's own): waited for 5 s, then one line.
  writeFileSync(lock, `${process.pid} ${host}`)
  const held = await clanka(["run", "--resume", id.slice(0, 8), "x"], { env: served.env })
  expect(held).toMatchObject({ code: 2, stderr: `clanka: ${lock} is held by another clanka; if none is running, delete it\n` })
  // Its process is gone (pid 2^22 + 1 is above Linux's pid_max): taken over.
  writeFileSync(lock, `${2 ** 22 + 1} ${host}`)
  const resumed = await clanka(["run", "--json", "--resume", id.slice(0, 8), "go on"], { env: served.env })
  expect(resumed.code).toBe(0)
  expect(sessionFiles(home)).toEqual([`${id}.jsonl`])
})
