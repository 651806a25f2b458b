/**
 * `clanka batch --queue`: puts each task on the BullMQ queue as a job, then prints each result
 * line as a worker completes the job. Ctrl-C tells the workers to stop the batch's running tasks,
 * takes the jobs no worker has started off the queue, and reports what still finishes.
 */
import { randomUUID } from "node:crypto"
import { ExitCode } from "../../errors.ts"
import type { Progress } from "../progress.ts"
import type { TaskResult } from "../run-task.ts"
import type { Task } from "../tasks.ts"
import { parseQueueUrl } from "./connection.ts"
import { BatchControl } from "./control.ts"
import { checkProgress } from "./job-check.ts"
import { JOB_NAME, jobId, type JobOutcome, type TaskJob } from "./jobs.ts"
import { closeWithin, connectionErrors, openRedis } from "./redis.ts"

export interface QueuedBatch {
  url: string
  tasks: Task[]
  agent: string[]
  retries: number
  capUsd?: number
  signal: AbortSignal
  print: (result: TaskResult) => void
  progress: Progress
}

/** Finished jobs are kept this long, for a coordinator that looks again. */
const KEEP_SECONDS = 7 * 24 * 3600
/** How often the jobs are looked at directly, in case an event was missed. */
const RECHECK_MS = 10_000
/** After Ctrl-C, how long running tasks have to wind down and report. */
const WIND_DOWN_MS = 60_000

/** Runs the batch on the queue; false when its connections could not close cleanly (Redis went away). */
export async function enqueueAndCollect(batch: QueuedBatch): Promise<boolean> {
  const { tasks, progress } = batch
  const place = parseQueueUrl(batch.url)
  const redis = await openRedis(place)
  const { Queue, QueueEvents } = await import("bullmq")
  const queue = new Queue<TaskJob, JobOutcome>(place.name, { connection: place.connection })
  const events = new QueueEvents(place.name, { connection: place.connection })
  const complain = connectionErrors((line) => progress.note(line))
  queue.on("error", complain)
  events.on("error", complain)
  let clean = false
  try {
    // Listening before the first job is added: no completion is missed.
    await events.waitUntilReady()
    const id = randomUUID()
    const control = new BatchControl(redis, place, id)
    await control.create(batch.capUsd)
    const pending = new Map<string, Task>(tasks.map((task, index) => [jobId(id, index), task]))
    const active = new Set<string>()
    let wake = () => {}
    const settle = (job: string, outcome: JobOutcome) => {
      const task = pending.get(job)
      if (!task) return
      pending.delete(job)
      if ("result" in outcome) {
        // A worker's word, through Redis: its line is printed only in the shape of one, under this task's id.
        const result = checkResult(outcome.result, task.id) ?? { ...emptyResult(task), error: "the queue gave up on the task: its worker's result is not a result line" }
        batch.print(result)
        progress.spend(result.costUsd ?? 0)
        progress.finish(result, active.has(job))
      } else if (active.has(job)) progress.finish({ ...emptyResult(task), exitCode: ExitCode.interrupted }, true)
      if (pending.size === 0) wake()
    }
    const failed = async (job: string, reason: string) => {
      const task = pending.get(job)
      if (!task) return
      const progressed = checkProgress((await queue.getJob(job).catch(() => undefined))?.progress)
      settle(job, { result: { ...emptyResult(task), sessionId: progressed.sessionId ?? null, error: `the queue gave up on the task: ${reason}` } })
    }
    events.on("active", ({ jobId: job }) => {
      if (!pending.has(job) || active.has(job)) return
      active.add(job)
      progress.start()
    })
    events.on("completed", ({ jobId: job, returnvalue }) => settle(job, outcomeOf(returnvalue)))
    events.on("failed", ({ jobId: job, failedReason }) => void failed(job, failedReason))

    await queue.addBulk(
      tasks.map((task, index) => ({
        name: JOB_NAME,
        data: { batch: id, task, agent: batch.agent, retries: batch.retries },
        opts: { jobId: jobId(id, index), removeOnComplete: { age: KEEP_SECONDS }, removeOnFail: { age: KEEP_SECONDS } },
      })),
    )
    progress.note(`${tasks.length} task${tasks.length === 1 ? "" : "s"} on ${place.shown} (batch ${id}); clanka worker --queue ${place.shown} runs them`)

    // Looks at the jobs themselves: for a completion whose event was missed, or a job removed.
    const recheck = async () => {
      for (const job of [...pending.keys()]) {
        const found = await queue.getJob(job)
        if (!found) await failed(job, "it is no longer on the queue")
        else if (found.finishedOn && found.returnvalue) settle(job, outcomeOf(found.returnvalue))
        else if (found.finishedOn && found.failedReason) await failed(job, found.failedReason)
      }
    }
    const waitFor = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(finish, ms)
        function finish() {
          clearTimeout(timer)
          batch.signal.removeEventListener("abort", finish)
          resolve()
        }
        wake = finish
        batch.signal.addEventListener("abort", finish, { once: true })
      })
    while (pending.size > 0 && !batch.signal.aborted) {
      await waitFor(RECHECK_MS)
      if (pending.size > 0 && !batch.signal.aborted) await recheck()
    }
    if (batch.signal.aborted && pending.size > 0) {
      // Running tasks stop within a second or so (the workers watch the batch); the others go.
      await control.stop("interrupt")
      for (const job of [...pending.keys()]) {
        const found = await queue.getJob(job)
        const state = found ? await found.getState() : "unknown"
        if (!found || ["waiting", "delayed", "prioritized", "wait"].includes(state)) {
          await found?.remove().catch(() => {})
          if (!found || !(await queue.getJob(job))) pending.delete(job)
        }
      }
      const deadline = Date.now() + WIND_DOWN_MS
      while (pending.size > 0 && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000)
          wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        await recheck()
      }
    }
  } finally {
    clean = await closeWithin(5000, events, queue)
    redis.disconnect()
  }
  return clean
}

function outcomeOf(value: unknown): JobOutcome {
  const parsed = typeof value === "string" ? safeParse(value) : value
  return parsed && typeof parsed === "object" && ("result" in parsed || "skipped" in parsed) ? (parsed as JobOutcome) : { skipped: "interrupted" }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** A result line as a worker returns it, with this task's id; undefined when it is not one. */
function checkResult(value: unknown, id: string | number): TaskResult | undefined {
  if (typeof value !== "object" || value === null) return undefined
  const r = value as Record<string, unknown>
  const text = (field: unknown) => field === null || typeof field === "string"
  const count = (field: unknown) => Number.isSafeInteger(field) && (field as number) >= 0
  const ok =
    text(r.sessionId) &&
    Number.isSafeInteger(r.exitCode) &&
    (r.costUsd === null || (typeof r.costUsd === "number" && Number.isFinite(r.costUsd) && r.costUsd >= 0)) &&
    count(r.turns) &&
    count(r.durationMs) &&
    text(r.summary) &&
    text(r.error)
  if (!ok) return undefined
  const { sessionId, exitCode, costUsd, turns, durationMs, summary, error } = r as unknown as TaskResult
  return { id, sessionId, exitCode, costUsd, turns, durationMs, summary, error }
}

function emptyResult(task: Task): TaskResult {
  return { id: task.id, sessionId: null, exitCode: ExitCode.failed, costUsd: 0, turns: 0, durationMs: 0, summary: null, error: null }
}
