// clanka batch --queue and clanka worker: a real redis-server on a loopback port, real workers.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { existsSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, MAIN } from "../support/cli.ts"
import { startFakeModel, type FakeRequest, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { redisAvailable, startRedis, type RedisServer } from "../support/redis.ts"
import { clanka, testbed } from "../session/helpers.ts"
import { until } from "../support/until.ts"

const available = redisAvailable()
const { root, workspace, freshHome } = testbed("clanka-queue-")
let redis: RedisServer
let server: FakeServer | undefined
const workers: Worker[] = []

beforeAll(async () => {
  if (available) redis = await startRedis()
})
afterAll(async () => {
  if (available) await redis.stop()
})
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop()))
  await server?.close()
  server = undefined
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
let queues = 0
const nextQueue = () => `q${++queues}`

function promptOf(request: FakeRequest): string {
  const first = request.body.messages[0]
  return typeof first.content === "string" ? first.content : first.content.find((block: any) => block.type === "text").text
}

async function model(reply: (prompt: string, request: FakeRequest) => FakeTurn): Promise<Record<string, string>> {
  server = await startFakeModel("anthropic", Array.from({ length: 50 }, () => (request: FakeRequest) => reply(promptOf(request), request)))
  return { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5" }
}

const finish = (summary: string): FakeTurn => ({ blocks: [{ type: "execute", script: `await taskComplete(${JSON.stringify(summary)})` }], usage: { input: 1000, output: 0 } })
const run = (script: string): FakeTurn => ({ blocks: [{ type: "execute", script }], usage: { input: 1000, output: 0 } })

let files = 0
function tasksFile(lines: unknown[]): string {
  const file = join(root, `tasks-${++files}.jsonl`)
  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n")
  return file
}

function lines(stdout: string): any[] {
  return stdout.trimEnd().split("\n").filter(Boolean).map((line) => JSON.parse(line))
}

interface Worker {
  child: Bun.Subprocess<"ignore", "pipe", "pipe">
  /** What it has said on stderr so far. */
  log(): string
  stop(): Promise<void>
}

/** A clanka worker on the queue; jobs' locks last 2 s so that a lost worker is noticed quickly. */
function startWorker(queue: string, env: Record<string, string>, extra: string[] = []): Worker {
  const child = Bun.spawn([BUN, MAIN, "worker", "--queue", redis.url(queue), "-C", workspace, "--sandbox", "off", "--concurrency", "1", ...extra], {
    env: { ...process.env, ...env, NO_COLOR: "1", CLANKA_QUEUE_LOCK_MS: "2000" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  let said = ""
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of child.stderr) said += decoder.decode(chunk, { stream: true })
  })()
  void new Response(child.stdout).text()
  const worker: Worker = {
    child,
    log: () => said,
    stop: async () => {
      child.kill("SIGTERM")
      await child.exited
    },
  }
  workers.push(worker)
  return worker
}

test.skipIf(!available)("two workers share a batch's tasks; the batch prints one result line per task", async () => {
  const queue = nextQueue()
  const env = await model((prompt, request) => (request.body.messages.length === 1 ? run("await sleep(300)") : finish(`did ${prompt}`)))
  const home = freshHome()
  // The batch's agent flags win over a worker's.
  const one = startWorker(queue, { ...env, CLANKA_HOME: home }, ["--system", "the worker's own words"])
  const two = startWorker(queue, { ...env, CLANKA_HOME: home })
  await until(() => one.log().includes("waiting for tasks") && two.log().includes("waiting for tasks"), "the workers")
  const file = tasksFile(["a", "b", "c", "d"].map((id) => ({ id, prompt: `task ${id}` })))
  const result = await clanka(["batch", "--queue", redis.url(queue), file, "--system", "the batch's words"], { env, timeoutMs: 30_000 })
  expect(result.code).toBe(0)
  for (const request of server!.requests) expect(request.system).toContain("the batch's words")
  expect(server!.requests.some((request) => request.system.includes("the worker's own words"))).toBe(false)
  const printed = lines(result.stdout).sort((x, y) => x.id.localeCompare(y.id))
  expect(printed).toEqual(
    ["a", "b", "c", "d"].map((id) => ({ id, sessionId: expect.stringMatching(UUID), exitCode: 0, costUsd: 0.006, turns: 2, durationMs: expect.any(Number), summary: `did task ${id}`, error: null })),
  )
  // Each task ran once, and both workers took some.
  expect(server!.requests.filter((request) => request.body.messages.length === 1).map(promptOf).sort()).toEqual(["task a", "task b", "task c", "task d"])
  expect(one.log()).toContain(": done")
  expect(two.log()).toContain(": done")
})

const takeovers = [
  { stop: "SIGKILL", shared: true, name: "a worker killed mid-task (SIGKILL): another takes the task over and resumes its session from the shared sessions directory" },
  { stop: "SIGKILL", shared: false, name: "a worker killed mid-task, sessions not shared: another starts the task again" },
  { stop: "SIGTERM", shared: true, name: "a worker stopped mid-task (SIGTERM) puts the task back; another resumes its session" },
] as const

for (const { stop, shared, name } of takeovers) {
  test.skipIf(!available)(
    name,
    async () => {
      const queue = nextQueue()
      const marker = join(root, `${queue}-started`)
      const env = await model((_prompt, request) =>
        request.lastUserText?.startsWith("The previous attempt at this task stopped")
          ? finish("finished on the other worker")
          : request.body.messages.length === 1 && !existsSync(marker)
            ? run(`await writeFile({ path: ${JSON.stringify(marker)}, content: "" }); await sleep(60000)`)
            : finish("done from the start"),
      )
      const home = freshHome()
      const first = startWorker(queue, { ...env, CLANKA_HOME: home })
      await until(() => first.log().includes("waiting for tasks"), "the first worker")
      const file = tasksFile([{ id: "long", prompt: "take your time" }])
      const batch = Bun.spawn([BUN, MAIN, "batch", "--queue", redis.url(queue), file], { env: { ...process.env, ...env, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe", timeout: 40_000 })
      const stdout = new Response(batch.stdout).text()
      const stderr = new Response(batch.stderr).text()
      await until(() => existsSync(marker), "the task to start")
      const other = startWorker(queue, { ...env, CLANKA_HOME: shared ? home : freshHome() })
      await until(() => other.log().includes("waiting for tasks"), "the second worker")
      first.child.kill(stop)
      expect(await first.child.exited).toBe(stop === "SIGKILL" ? 137 : 130)
      expect(await batch.exited).toBe(0)
      const [line] = lines(await stdout)
      const firstSession = readdirSync(join(home, "sessions"))[0]!.replace(/\.jsonl$/, "")
      if (shared) {
        // Both workers' turns and spending count (the session's totals when it was taken over).
        expect(line).toMatchObject({ id: "long", sessionId: firstSession, exitCode: 0, summary: "finished on the other worker", error: null, turns: 2, costUsd: 0.006 })
        expect(readdirSync(join(home, "sessions"))).toEqual([`${firstSession}.jsonl`])
        // The resumed run saw the task as the first worker left it.
        const last = server!.requests.at(-1)!
        expect(promptOf(last)).toBe("take your time")
        expect(last.lastUserText).toStartWith(`The previous attempt at this task stopped: the worker running it was ${stop === "SIGKILL" ? "lost" : "stopped"}`)
        expect(other.log()).toContain(`task "long": resuming session ${firstSession.slice(0, 8)}`)
        if (stop === "SIGTERM") expect(first.log()).toContain('task "long": put back on the queue')
      } else {
        expect(line).toMatchObject({ id: "long", exitCode: 0, summary: "done from the start", error: null, turns: 1 })
        expect(line.sessionId).not.toBe(firstSession)
        expect(server!.requests.map(promptOf)).toEqual(["take your time", "take your time"])
        expect(other.log()).toContain("of the lost worker is not in this machine's sessions directory; starting the task again")
      }
      expect(await stderr).toContain("1 of 1 task succeeded")
    },
    40_000,
  )
}

test.skipIf(!available)("--rate-limit: model requests of every worker wait for a slot of the queue's window", async () => {
  const queue = nextQueue()
  const arrived: number[] = []
  const env = await model((prompt) => {
    arrived.push(Date.now())
    return finish(`did ${prompt}`)
  })
  // Two requests already in the window, as if made 58 s ago by other workers: they leave it in 2 s.
  const [seconds, micros] = redis.cli("TIME").split("\n").map(Number) as [number, number]
  const now = seconds * 1000 + Math.floor(micros / 1000)
  redis.cli("ZADD", `clanka:${queue}:model-requests`, String(now - 58_000), "earlier-1", String(now - 58_000), "earlier-2")
  const full = Date.now()
  const worker = startWorker(queue, { ...env, CLANKA_HOME: freshHome() }, ["--rate-limit", "2"])
  await until(() => worker.log().includes("waiting for tasks"), "the worker")
  expect(worker.log()).toContain("2 model requests a minute for all workers")
  const file = tasksFile([{ id: "a", prompt: "a" }])
  const result = await clanka(["batch", "--queue", redis.url(queue), file], { env, timeoutMs: 30_000 })
  expect(result.code).toBe(0)
  expect(lines(result.stdout)[0]).toMatchObject({ id: "a", exitCode: 0, summary: "did a" })
  expect(arrived).toHaveLength(1)
  expect(arrived[0]! - full).toBeGreaterThanOrEqual(1800)
  // The window now holds this request alone.
  expect(redis.cli("ZCARD", `clanka:${queue}:model-requests`)).toBe("1")
})

test.skipIf(!available)("--max-budget-usd is the whole queued batch's: once spent, workers start no more of its tasks", async () => {
  const queue = nextQueue()
  // 200,000 input tokens: $0.60.
  const expensive = await model((prompt) => (prompt === "spend" ? { blocks: [{ type: "execute", script: 'console.log("spent")' }], usage: { input: 200_000, output: 0 } } : finish("cheap")))
  const worker = startWorker(queue, { ...expensive, CLANKA_HOME: freshHome() })
  await until(() => worker.log().includes("waiting for tasks"), "the worker")
  const file = tasksFile([{ id: "a", prompt: "spend" }, { id: "b", prompt: "cheap" }])
  const result = await clanka(["batch", "--queue", redis.url(queue), "--max-budget-usd", "0.5", file], { env: expensive, timeoutMs: 30_000 })
  expect(result.code).toBe(1)
  const [a, b] = lines(result.stdout)
  expect(a).toMatchObject({ id: "a", exitCode: 1, costUsd: 0.6, error: expect.stringMatching(/^stopped: the (run|batch) has cost \$0\.6000/) })
  expect(b).toEqual({ id: "b", sessionId: null, exitCode: 1, costUsd: 0, turns: 0, durationMs: 0, summary: null, error: "not started: the batch has cost $0.6000, which reaches its budget of $0.5 (--max-budget-usd)" })
  expect(server!.requests.map(promptOf)).toEqual(["spend"])
})

test.skipIf(!available)("Ctrl-C of a queued batch: its running task stops (exit 130), its waiting ones leave the queue; exit 130", async () => {
  const queue = nextQueue()
  const marker = join(root, `${queue}-sleeping`)
  const env = await model((prompt) => (prompt === "sleep" ? run(`await writeFile({ path: ${JSON.stringify(marker)}, content: "" }); await sleep(60000)`) : finish("never")))
  const worker = startWorker(queue, { ...env, CLANKA_HOME: freshHome() })
  await until(() => worker.log().includes("waiting for tasks"), "the worker")
  const file = tasksFile([{ id: "sleeper", prompt: "sleep" }, { id: "next", prompt: "next" }])
  const batch = Bun.spawn([BUN, MAIN, "batch", "--queue", redis.url(queue), file], { env: { ...process.env, ...env, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe", timeout: 30_000 })
  const stdout = new Response(batch.stdout).text()
  await until(() => existsSync(marker), "the task to start")
  batch.kill("SIGINT")
  expect(await batch.exited).toBe(130)
  expect(lines(await stdout)).toEqual([{ id: "sleeper", sessionId: expect.stringMatching(UUID), exitCode: 130, costUsd: 0.003, turns: 1, durationMs: expect.any(Number), summary: null, error: "interrupted" }])
  expect(redis.cli("LLEN", `bull:${queue}:wait`)).toBe("0")
  expect(server!.requests.map(promptOf)).toEqual(["sleep"])
  // The worker goes on waiting for other batches.
  expect(worker.child.exitCode).toBeNull()
})

test.skipIf(!available)("queue mistakes are one line: executor flags on batch --queue (exit 2), a Redis that does not answer (exit 1)", async () => {
  const file = tasksFile([{ prompt: "x" }])
  expect(await clanka(["batch", "--queue", redis.url("q"), "--ssh", "somewhere", file])).toEqual({
    code: 2,
    stdout: "",
    stderr: "clanka: --ssh applies to the machines that run the tasks: give it to clanka worker, not to clanka batch --queue\n",
  })
  expect((await clanka(["batch", "--queue", "redis://127.0.0.1:1/q", file])).stderr).toStartWith("clanka: cannot reach the queue's Redis at redis://127.0.0.1:1/q: ")
  expect(await clanka(["worker", "--queue", "http://x/q"])).toEqual({ code: 2, stdout: "", stderr: 'clanka: --queue "http://x/q": not a redis:// or rediss:// URL; give redis://HOST:PORT/NAME\n' })
  // A password in a mistaken URL stays out of the message (a CI log).
  expect(await clanka(["worker", "--queue", "http://user:s3cret@x/q"])).toEqual({ code: 2, stdout: "", stderr: 'clanka: --queue "http://user:…@x/q": not a redis:// or rediss:// URL; give redis://HOST:PORT/NAME\n' })
  expect((await clanka(["worker"])).stderr).toBe("clanka: clanka worker needs --queue redis://HOST:PORT/NAME\n")
})

test.skipIf(!available)("a worker whose Redis went away still stops when told to (exit 130)", async () => {
  const own = await startRedis()
  const child = Bun.spawn([BUN, MAIN, "worker", "--queue", own.url("gone"), "-C", workspace], { env: { ...process.env, NO_COLOR: "1" }, stdout: "ignore", stderr: "pipe" })
  let said = ""
  void (async () => {
    for await (const chunk of child.stderr) said += new TextDecoder().decode(chunk)
  })()
  await until(() => said.includes("waiting for tasks"), "the worker")
  await own.stop()
  await until(() => said.includes("ECONNREFUSED"), "the worker to notice")
  const stopped = Date.now()
  child.kill("SIGTERM")
  const code = await Promise.race([child.exited, Bun.sleep(15_000).then(() => "still running")])
  if (code === "still running") child.kill("SIGKILL")
  expect(code).toBe(130)
  expect(Date.now() - stopped).toBeLessThan(10_000)
}, 30_000)
