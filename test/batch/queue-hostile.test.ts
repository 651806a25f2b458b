// Jobs that someone else put on the queue: a worker runs only what a clanka batch may ask of it.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { BUN, clanka, MAIN } from "../support/cli.ts"
import { startFakeModel, type FakeServer } from "../support/fake-model.ts"
import { redisAvailable, startRedis, type RedisServer } from "../support/redis.ts"
import { testbed } from "../session/helpers.ts"
import { until } from "../support/until.ts"

const available = redisAvailable()
const { root, workspace, freshHome } = testbed("clanka-queue-hostile-")
let redis: RedisServer
let server: FakeServer | undefined
const children: Bun.Subprocess[] = []

beforeAll(async () => {
  if (available) redis = await startRedis()
})
afterAll(async () => {
  if (available) await redis.stop()
})
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill("SIGTERM")
    await child.exited
  }
  await server?.close()
  server = undefined
})

let queues = 0
const nextQueue = () => `hostile${++queues}`

function startWorker(queue: string, env: Record<string, string>, flags: string[] = []): { log: () => string; child: Bun.Subprocess } {
  // In its directory, without -C (which --executor would refuse).
  const child = Bun.spawn([BUN, MAIN, "worker", "--queue", redis.url(queue), "--concurrency", "1", ...flags], {
    cwd: workspace,
    env: { ...process.env, ...env, NO_COLOR: "1", CLANKA_QUEUE_LOCK_MS: "2000" },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  })
  children.push(child)
  let said = ""
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of child.stderr) said += decoder.decode(chunk, { stream: true })
  })()
  return { log: () => said, child }
}

/** Puts `data` on the queue as a job, as another program with access to Redis could, and waits for its end. */
async function foreignJob(queue: string, data: unknown, progress?: object, beforeWait?: () => void): Promise<{ state: string; failedReason?: string; returnvalue?: any }> {
  const { Queue } = await import("bullmq")
  const port = { host: "127.0.0.1", port: redis.port }
  const jobs = new Queue(queue, { connection: port })
  try {
    const job = await jobs.add("clanka-task", data as any)
    if (progress) await job.updateProgress(progress)
    beforeWait?.()
    let state = ""
    await until(async () => ["completed", "failed"].includes((state = await job.getState())), "the job to end")
    const done = (await jobs.getJob(job.id!))!
    return { state, failedReason: done.failedReason, returnvalue: done.returnvalue }
  } finally {
    await jobs.close()
  }
}

test.skipIf(!available)("a job cannot give the worker's runs executor or sandbox flags: it fails, nothing runs", async () => {
  const queue = nextQueue()
  server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script: 'await taskComplete("ran")' }] }])
  const env = { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_HOME: freshHome() }
  const worker = startWorker(queue, env)
  await until(() => worker.log().includes("waiting for tasks"), "the worker")
  const marker = join(root, "pwned")
  const job = await foreignJob(queue, {
    batch: "b",
    task: { id: "x", prompt: "hello", line: 1 },
    agent: ["--executor", `sh -c 'touch ${marker}'`],
    retries: 0,
  })
  expect(existsSync(marker)).toBe(false)
  expect(job.state).toBe("failed")
  expect(job.failedReason).toBe('not a clanka task: agent flag "--executor" is not one a batch gives its tasks')
  expect(server.requests).toHaveLength(0)
  expect(worker.log()).toContain('not a clanka task: agent flag "--executor"')
}, 40_000)

test.skipIf(!available)("a job cannot send a task to a host the worker was not given, nor off the worker's ssh hosts onto its own machine", async () => {
  server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script: 'await taskComplete("ran")' }] }])
  const env = { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_HOME: freshHome() }
  const task = { id: "t", prompt: "hello", line: 1 }
  // A worker without --ssh: its ssh keys and config reach no host for the queue.
  const local = nextQueue()
  const here = startWorker(local, env)
  await until(() => here.log().includes("waiting for tasks"), "the worker")
  expect(await foreignJob(local, { batch: "b", task: { ...task, ssh: "deploy@prod.example:/srv" }, agent: [], retries: 0 })).toMatchObject({
    state: "failed",
    failedReason: 'not a clanka task: ssh host "deploy@prod.example" is not one of this worker\'s --ssh hosts (it has none)',
  })
  // A worker that runs its tasks on build@ci: another host is refused, and so is a dir (this machine).
  const remote = nextQueue()
  const there = startWorker(remote, env, ["--ssh", "build@ci.invalid:/srv/b"])
  await until(() => there.log().includes("waiting for tasks"), "the worker")
  expect(await foreignJob(remote, { batch: "b", task: { ...task, ssh: "root@ci.invalid" }, agent: [], retries: 0 })).toMatchObject({
    state: "failed",
    failedReason: 'not a clanka task: ssh host "root@ci.invalid" is not one of this worker\'s --ssh hosts (build@ci.invalid)',
  })
  expect(await foreignJob(remote, { batch: "b", task: { ...task, dir: "/" }, agent: [], retries: 0 })).toMatchObject({
    state: "failed",
    failedReason: "not a clanka task: this worker runs tasks on its --ssh hosts (build@ci.invalid); a task's dir would run it on the worker's own machine",
  })
  expect(server.requests).toHaveLength(0)
}, 60_000)

test.skipIf(!available)("malformed jobs fail one by one with the reason; the worker goes on to the next", async () => {
  const queue = nextQueue()
  server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script: 'await taskComplete("ran")' }] }])
  const env = { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_HOME: freshHome() }
  const worker = startWorker(queue, env)
  await until(() => worker.log().includes("waiting for tasks"), "the worker")
  const task = { id: "t", prompt: "hello", line: 1 }
  const cases: [unknown, string][] = [
    ["a string", "the job's data is not an object"],
    [{ batch: "b", task: { ...task, prompt: 5 }, agent: [], retries: 0 }, "prompt must be a string"],
    [{ batch: "b", task: { ...task, sandbox: "off" }, agent: [], retries: 0 }, 'unknown key "sandbox" (a task has id, prompt, dir, ssh, model, maxBudgetUsd, maxTurns)'],
    [{ batch: "b", task, agent: ["--network"], retries: 0 }, "agent is not a list of flags and values"],
    [{ batch: "b", task, agent: ["--model", "anthropic/claude-sonnet-4-5", "--writable", "/"], retries: 0 }, 'agent flag "--writable" is not one a batch gives its tasks'],
    [{ batch: "b", task, agent: [], retries: "many" }, "retries is not a whole number"],
    [{ batch: "\u001b]0;pwned\u0007", task, agent: [], retries: 0 }, "the batch id is not one clanka batch gives"],
  ]
  for (const [data, reason] of cases) {
    const job = await foreignJob(queue, data)
    expect(job).toMatchObject({ state: "failed", failedReason: `not a clanka task: ${reason}` })
  }
  expect(server.requests).toHaveLength(0)
  // A well-formed one still runs.
  const good = await foreignJob(queue, { batch: "b", task, agent: ["--system", "be brief"], retries: 0 })
  expect(good).toMatchObject({ state: "completed", returnvalue: { result: { id: "t", exitCode: 0, summary: "ran" } } })
}, 60_000)

test.skipIf(!available)("a job's progress naming a session of another task does not make the worker resume it (its history stays out of the run)", async () => {
  const first = nextQueue()
  const second = nextQueue()
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: 'await taskComplete("kept the secret")' }] },
    { blocks: [{ type: "execute", script: 'await taskComplete("fresh")' }] },
  ])
  const env = { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_HOME: freshHome() }
  const owner = startWorker(first, env)
  await until(() => owner.log().includes("waiting for tasks"), "the worker")
  const victim = await foreignJob(first, { batch: "b", task: { id: "mine", prompt: "the secret is 42", line: 1 }, agent: [], retries: 0 })
  const victimSession: string = victim.returnvalue.result.sessionId
  owner.child.kill("SIGTERM")
  await owner.child.exited
  // A job on another queue says it was taken over from a lost worker that ran the victim's session.
  let other: { log: () => string } | undefined
  const forged = await foreignJob(
    second,
    { batch: "b", task: { id: "theirs", prompt: "tell me what you know", line: 1 }, agent: [], retries: 1 },
    { sessionId: victimSession, attempts: 1 },
    () => (other = startWorker(second, env)),
  )
  expect(forged).toMatchObject({ state: "completed", returnvalue: { result: { id: "theirs", exitCode: 0, summary: "fresh" } } })
  expect(forged.returnvalue.result.sessionId).not.toBe(victimSession)
  // The run saw its own prompt alone, not the victim's history.
  expect(JSON.stringify(server.requests[1]!.body.messages)).not.toContain("the secret is 42")
  expect(other!.log()).not.toContain("resuming session")
}, 60_000)

test.skipIf(!available)("a Redis that refuses says why (a wrong password, a closed port), without the password; exit 1", async () => {
  const own = await startRedis()
  try {
    own.cli("CONFIG", "SET", "requirepass", "right-pw")
    const file = join(root, "one.jsonl")
    await Bun.write(file, '{"prompt": "x"}\n')
    const wrong = await clanka(["batch", "--queue", `redis://:wrong-pw@127.0.0.1:${own.port}/q`, file])
    expect(wrong).toEqual({ code: 1, stdout: "", stderr: `clanka: cannot reach the queue's Redis at redis://127.0.0.1:${own.port}/q: WRONGPASS invalid username-password pair or user is disabled.\n` })
    const worker = await clanka(["worker", "--queue", `redis://:wrong-pw@127.0.0.1:${own.port}/q`])
    expect(worker).toEqual({ code: 1, stdout: "", stderr: `clanka: cannot reach the queue's Redis at redis://127.0.0.1:${own.port}/q: WRONGPASS invalid username-password pair or user is disabled.\n` })
  } finally {
    await own.stop()
  }
  expect((await clanka(["worker", "--queue", "redis://127.0.0.1:1/q"])).stderr).toBe("clanka: cannot reach the queue's Redis at redis://127.0.0.1:1/q: connect ECONNREFUSED 127.0.0.1:1\n")
})

test.skipIf(!available)("a job whose progress is not a worker's (a session id that is a number, attempts as text) starts the task afresh", async () => {
  const queue = nextQueue()
  server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script: 'await taskComplete("fresh")' }] }])
  const env = { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_HOME: freshHome() }
  let worker: { log: () => string } | undefined
  const job = await foreignJob(queue, { batch: "b", task: { id: "t", prompt: "hello", line: 1 }, agent: [], retries: 2 }, { sessionId: 42, attempts: "1" }, () => (worker = startWorker(queue, env)))
  expect(job).toMatchObject({ state: "completed", returnvalue: { result: { id: "t", exitCode: 0, summary: "fresh", turns: 1 } } })
  expect(worker!.log()).toContain('task "t": started')
}, 60_000)

test.skipIf(!available)("a queued batch given results that are not result lines prints a failed line for each task under its own id, and ends", async () => {
  const queue = nextQueue()
  const file = join(root, "three.jsonl")
  await Bun.write(file, ["a", "b", "c"].map((id) => JSON.stringify({ id, prompt: id })).join("\n") + "\n")
  const batch = Bun.spawn([BUN, MAIN, "batch", "--queue", redis.url(queue), file], { env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" })
  children.push(batch)
  // Something other than clanka worker answers the jobs.
  const { Worker } = await import("bullmq")
  const answers: unknown[] = [{ result: null }, { result: "done" }, { result: { id: "someone else", sessionId: null, exitCode: "0", costUsd: "lots", turns: 1, durationMs: 1, summary: null, error: 5 } }]
  const other = new Worker(queue, async (job) => answers[Number(job.id!.split("-").at(-1))], { connection: { host: "127.0.0.1", port: redis.port } })
  try {
    expect(await batch.exited).toBe(1)
  } finally {
    await other.close()
  }
  const printed = (await new Response(batch.stdout).text()).trimEnd().split("\n").map((line) => JSON.parse(line))
  expect(printed.sort((x, y) => x.id.localeCompare(y.id))).toEqual(
    ["a", "b", "c"].map((id) => ({ id, sessionId: null, exitCode: 1, costUsd: 0, turns: 0, durationMs: 0, summary: null, error: "the queue gave up on the task: its worker's result is not a result line" })),
  )
  expect(await new Response(batch.stderr).text()).toMatch(/clanka batch: 0 of 3 tasks succeeded, 3 failed; \$0\.0000 in [\d.]+ s\n$/)
}, 60_000)

test.skipIf(!available)("a job that failed with a progress not a worker's is reported with the queue's reason", async () => {
  const queue = nextQueue()
  const file = join(root, "one-more.jsonl")
  await Bun.write(file, '{"id": "a", "prompt": "a"}\n')
  const batch = Bun.spawn([BUN, MAIN, "batch", "--queue", redis.url(queue), file], { env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" })
  children.push(batch)
  const { Worker } = await import("bullmq")
  const other = new Worker(
    queue,
    async (job) => {
      await job.updateProgress({ sessionId: { not: "an id" } })
      throw new Error("boom")
    },
    { connection: { host: "127.0.0.1", port: redis.port } },
  )
  try {
    expect(await batch.exited).toBe(1)
  } finally {
    await other.close()
  }
  expect(JSON.parse(await new Response(batch.stdout).text())).toMatchObject({ id: "a", sessionId: null, exitCode: 1, error: "the queue gave up on the task: boom" })
}, 60_000)
