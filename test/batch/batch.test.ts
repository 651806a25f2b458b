// clanka batch: one clanka run session per line of a tasks file, one result line per task.
import { afterEach, expect, test } from "bun:test"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, MAIN } from "../support/cli.ts"
import { startFakeModel, type FakeRequest, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { clanka, testbed, transcript } from "../session/helpers.ts"

const { root, workspace, freshHome } = testbed("clanka-batch-")
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const KEYS = ["id", "sessionId", "exitCode", "costUsd", "turns", "durationMs", "summary", "error"]

/** The first user text of a request: the task's prompt, whatever came after it. */
function promptOf(request: FakeRequest): string {
  const first = request.body.messages[0]
  return typeof first.content === "string" ? first.content : first.content.find((block: any) => block.type === "text").text
}

/** A fake model that answers every request with `reply(prompt, request)`. */
async function model(reply: (prompt: string, request: FakeRequest) => FakeTurn, home = freshHome()) {
  server = await startFakeModel("anthropic", Array.from({ length: 50 }, () => (request: FakeRequest) => reply(promptOf(request), request)))
  return { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_HOME: home }
}

const finish = (summary: string, input = 1000, output = 100): FakeTurn => ({ blocks: [{ type: "execute", script: `await taskComplete(${JSON.stringify(summary)})` }], usage: { input, output } })
const run = (script: string, input = 1000): FakeTurn => ({ blocks: [{ type: "execute", script }], usage: { input, output: 0 } })

let files = 0
function tasksFile(lines: unknown[]): string {
  const file = join(root, `tasks-${++files}.jsonl`)
  writeFileSync(file, lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n") + "\n")
  return file
}

function lines(stdout: string): any[] {
  return stdout.trimEnd().split("\n").filter(Boolean).map((line) => JSON.parse(line))
}

test("each task is a saved session; one result line per task in the documented shape; exit 0", async () => {
  const home = freshHome()
  const env = await model((prompt) => finish(`did ${prompt}`), home)
  const file = tasksFile([{ prompt: "first" }, "", { id: "second", prompt: "second" }])
  const result = await clanka(["batch", file, "-C", workspace], { env })
  expect(result.code).toBe(0)
  const printed = lines(result.stdout)
  for (const line of printed) expect(Object.keys(line)).toEqual(KEYS)
  // Either may finish first (they run at once).
  const byId = Object.fromEntries(printed.map((line) => [line.id, line]))
  // 1000 input + 100 output tokens of claude-sonnet-4-5: $0.003 + $0.0015.
  expect(byId[1]).toEqual({ id: 1, sessionId: expect.stringMatching(UUID), exitCode: 0, costUsd: 0.0045, turns: 1, durationMs: expect.any(Number), summary: "did first", error: null })
  expect(byId.second).toEqual({ id: "second", sessionId: expect.stringMatching(UUID), exitCode: 0, costUsd: 0.0045, turns: 1, durationMs: expect.any(Number), summary: "did second", error: null })
  expect(printed).toHaveLength(2)
  // Saved as clanka run saves a session: the transcript ends with the run's AgentFinished.
  const saved = transcript(home, byId.second.sessionId)
  expect(saved[0]).toMatchObject({ type: "header", directory: workspace })
  expect(saved.some((line) => line.type === "event" && line.event._tag === "AgentFinished" && line.event.summary === "did second")).toBe(true)
  expect(result.stderr).toContain("clanka batch: 2 of 2 tasks succeeded, 0 failed; $0.0090")
})

test("a failed task is exit 1 for the batch; its line carries the run's exit code and error", async () => {
  const env = await model((prompt) => (prompt === "bad" ? { error: { status: 400, message: "no such thing" } } : finish("fine")))
  const file = tasksFile([{ id: "good", prompt: "good" }, { id: "bad", prompt: "bad", maxTurns: 3 }])
  const result = await clanka(["batch", file, "-C", workspace, "--concurrency", "1"], { env })
  expect(result.code).toBe(1)
  const [good, bad] = lines(result.stdout)
  expect(good).toMatchObject({ id: "good", exitCode: 0, summary: "fine", error: null })
  expect(bad).toMatchObject({ id: "bad", sessionId: expect.stringMatching(UUID), exitCode: 1, costUsd: 0, turns: 0, summary: null })
  expect(bad.error).toContain("no such thing")
  expect(result.stderr).toContain("clanka batch: [2/2] task \"bad\": exit 1: ")
})

test("a bad line is exit 2 with its line number, before any task runs", async () => {
  const env = await model(() => finish("ran"))
  const file = tasksFile([{ prompt: "fine" }, { prompt: "typo", promt: "typo" }])
  expect(await clanka(["batch", file], { env })).toEqual({
    code: 2,
    stdout: "",
    stderr: `clanka: ${file}:2: unknown key "promt" (a task has id, prompt, dir, ssh, model, maxBudgetUsd, maxTurns)\n`,
  })
  const both = tasksFile([{ prompt: "x", dir: "a", ssh: "b" }])
  expect((await clanka(["batch", both], { env })).stderr).toBe(`clanka: ${both}:1: dir and ssh both say where the task runs; give one\n`)
  const missing = tasksFile(["", { id: 7 }])
  expect((await clanka(["batch", missing], { env })).stderr).toBe(`clanka: ${missing}:2: missing prompt\n`)
  const twice = tasksFile([{ id: "a", prompt: "x" }, { id: "a", prompt: "y" }])
  expect((await clanka(["batch", twice], { env })).stderr).toBe(`clanka: ${twice}:2: id "a" is also the id of line 1; ids must be unique\n`)
  expect((await clanka(["batch", file, "--concurrency", "0"], { env })).stderr).toBe('clanka: --concurrency takes a positive whole number, got "0"\n')
  expect(server!.requests).toHaveLength(0)
})

test("a task's dir, model and maxTurns reach its run", async () => {
  const other = join(root, "other")
  mkdirSync(other, { recursive: true })
  const env = await model(() => run("console.log(1)"))
  const file = tasksFile([{ id: "turns", prompt: "count", maxTurns: 1, dir: "other", model: "anthropic/claude-haiku-4-5" }])
  // The task's model and maxTurns win over the batch's.
  const result = await clanka(["batch", file, "-C", root, "--model", "anthropic/claude-sonnet-4-5", "--max-turns", "5"], { env })
  expect(result.code).toBe(1)
  expect(lines(result.stdout)[0]).toMatchObject({ id: "turns", exitCode: 1, turns: 1, error: "stopped after 1 model turn (--max-turns 1) before the task was complete" })
  // -C is the base of a relative dir: the run's directory is root/other.
  expect(server!.requests[0]!.system).toContain(other)
  expect(server!.requests[0]!.body.model).toBe("claude-haiku-4-5")
  // A task's model that cannot be is the file's mistake, like a bad line.
  const bad = tasksFile([{ prompt: "x" }, { prompt: "y", model: "nope/none" }])
  expect(await clanka(["batch", bad], { env })).toMatchObject({ code: 2, stdout: "", stderr: expect.stringMatching(new RegExp(`^clanka: ${bad}:2: model: unknown model provider "nope"`)) })
  expect(server!.requests).toHaveLength(1)
})

test("a task whose executor is lost (exit 3) is resumed in its session; --retries 0 reports the loss", async () => {
  const pidFile = join(root, "executor.pid")
  const executor = `echo $$ > '${pidFile}'; exec '${BUN}' '${MAIN}' executor -C '${workspace}' --sandbox off`
  const reply = (_prompt: string, request: FakeRequest): FakeTurn =>
    request.lastUserText?.startsWith("The previous attempt at this task stopped") ? finish("finished after the loss") : run(`await bash({ command: "kill -TERM $(cat '${pidFile}')" })`)
  const home = freshHome()
  const env = await model(reply, home)
  const file = tasksFile([{ id: "fragile", prompt: "survive" }])
  const result = await clanka(["batch", file, "--executor", executor], { env, timeoutMs: 30_000 })
  expect(result.code).toBe(0)
  const [line] = lines(result.stdout)
  expect(line).toMatchObject({ id: "fragile", exitCode: 0, turns: 2, summary: "finished after the loss", error: null })
  expect(result.stderr).toContain(`task "fragile": the executor command (${executor}) was shut down while it was working; check it and run again; attempt 2 of 3`)
  // The second attempt went on in the same session, with the first one's history.
  expect(server!.requests).toHaveLength(2)
  expect(promptOf(server!.requests[1]!)).toBe("survive")
  expect(server!.requests[1]!.lastUserText).toStartWith("The previous attempt at this task stopped: its executor was lost")
  const saved = transcript(home, line.sessionId)
  expect(saved.filter((entry) => entry.type === "open")).toHaveLength(2)

  await server!.close()
  const again = await model(reply)
  const once = await clanka(["batch", file, "--executor", executor, "--retries", "0"], { env: again, timeoutMs: 30_000 })
  expect(once.code).toBe(1)
  expect(lines(once.stdout)[0]).toMatchObject({ id: "fragile", exitCode: 3, sessionId: expect.stringMatching(UUID), error: `the executor command (${executor}) was shut down while it was working; check it and run again` })
  expect(server!.requests).toHaveLength(1)
})

test("--skip-done skips the tasks an earlier run finished with exit 0", async () => {
  const env = await model((prompt) => finish(`did ${prompt}`))
  const file = tasksFile([{ id: "a", prompt: "a" }, { prompt: "b" }, { id: "c", prompt: "c" }])
  const results = join(root, "results.jsonl")
  writeFileSync(results, [JSON.stringify({ id: "a", exitCode: 0 }), JSON.stringify({ id: 2, exitCode: 0 }), JSON.stringify({ id: "c", exitCode: 1 }), '{"id":"cut'].join("\n"))
  const result = await clanka(["batch", file, "--skip-done", results, "-C", workspace], { env })
  expect(result.code).toBe(0)
  expect(lines(result.stdout).map((line) => [line.id, line.summary])).toEqual([["c", "did c"]])
  expect(server!.requests.map(promptOf)).toEqual(["c"])
  expect(result.stderr).toContain(`clanka batch: skipping 2 tasks already done in ${results}`)
  expect((await clanka(["batch", file, "--skip-done", join(root, "none.jsonl")], { env })).stderr).toBe(`clanka: --skip-done ${join(root, "none.jsonl")}: cannot read it: ENOENT\n`)
})

// claude-sonnet-4-5 at $3 per million input tokens: 100,000 input tokens cost $0.30.
test("--max-budget-usd: once the batch has spent it, the running task stops and the others do not start (exit 1 each)", async () => {
  // Three turns a task: two scripts, then taskComplete; $0.30 each.
  const env = await model((prompt, request) => (request.body.messages.length < 5 ? run(`console.log("working on ${prompt}")`, 100_000) : finish(`did ${prompt}`, 100_000, 0)))
  const file = tasksFile([{ id: "a", prompt: "a" }, { id: "b", prompt: "b" }, { id: "c", prompt: "c" }])
  const result = await clanka(["batch", file, "--max-budget-usd", "1", "--concurrency", "1", "-C", workspace], { env })
  expect(result.code).toBe(1)
  const printed = lines(result.stdout)
  // a: $0.90 in three turns; b is stopped by its first response (the batch is at $1.20), which
  // its run's own budget (what was left, $0.10) would have done too; c never starts.
  expect(printed.map((line) => [line.id, line.exitCode, line.costUsd, line.turns])).toEqual([["a", 0, 0.9, 3], ["b", 1, 0.3, 1], ["c", 1, 0, 0]])
  expect(printed[1].error).toBe("stopped: the batch has cost $1.2000, which reaches its budget of $1 (--max-budget-usd)")
  expect(printed[2]).toEqual({ id: "c", sessionId: null, exitCode: 1, costUsd: 0, turns: 0, durationMs: 0, summary: null, error: "not started: the batch has cost $1.2000, which reaches its budget of $1 (--max-budget-usd)" })
})

test("--max-budget-usd stops a running task once another's spending reaches it", async () => {
  const started = join(root, "slow-started")
  const env = await model((prompt) =>
    prompt === "slow" ? run(`await writeFile({ path: ${JSON.stringify(started)}, content: "" }); await sleep(60000)`, 10) : run('console.log("spent")', 200_000),
  )
  const file = tasksFile([{ id: "slow", prompt: "slow" }, { id: "spender", prompt: "spend" }])
  const result = await clanka(["batch", file, "--max-budget-usd", "0.5", "-C", workspace, "--sandbox", "off"], { env, timeoutMs: 30_000 })
  expect(result.code).toBe(1)
  const byId = Object.fromEntries(lines(result.stdout).map((line) => [line.id, line]))
  expect(byId.spender).toMatchObject({ exitCode: 1, costUsd: 0.6, error: "stopped: the batch has cost $0.6000, which reaches its budget of $0.5 (--max-budget-usd)" })
  expect(byId.slow).toMatchObject({ exitCode: 1, error: "stopped: the batch has cost $0.6000, which reaches its budget of $0.5 (--max-budget-usd)" })
  expect(byId.slow.durationMs).toBeLessThan(20_000)
})

test("Ctrl-C stops the running tasks, reports them (exit 130 each) and starts no other; the batch exits 130", async () => {
  const marker = join(root, "sleeping")
  const env = await model((prompt) => (prompt === "sleep" ? run(`await writeFile({ path: ${JSON.stringify(marker)}, content: "" }); await sleep(60000)`) : finish("never")))
  const file = tasksFile([{ id: "sleeper", prompt: "sleep" }, { id: "next", prompt: "next" }])
  const child = Bun.spawn([BUN, MAIN, "batch", file, "--concurrency", "1", "-C", workspace, "--sandbox", "off"], {
    env: { ...process.env, ...env, NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
  })
  const stdout = new Response(child.stdout).text()
  const stderr = new Response(child.stderr).text()
  const deadline = Date.now() + 15_000
  while (!existsSync(marker) && Date.now() < deadline) await Bun.sleep(50)
  child.kill("SIGINT")
  expect(await child.exited).toBe(130)
  const printed = lines(await stdout)
  expect(printed).toEqual([{ id: "sleeper", sessionId: expect.stringMatching(UUID), exitCode: 130, costUsd: 0.003, turns: 1, durationMs: expect.any(Number), summary: null, error: "interrupted" }])
  expect(server!.requests.map(promptOf)).toEqual(["sleep"])
  expect(await stderr).toContain("clanka batch: interrupted: 0 of 2 tasks succeeded, 1 failed, 1 not run")
})
