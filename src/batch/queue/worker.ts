/**
 * `clanka worker --queue`: takes tasks off the BullMQ queue, `concurrency` at a time, and runs
 * each as `clanka run` on this machine (or its --ssh targets), as `clanka batch` does; the result
 * line is the job's return value.
 *
 * A worker that dies stops renewing its jobs' locks; BullMQ's stalled-job check then hands each
 * job to another worker, which resumes the task's session when it can read it (a sessions
 * directory shared by the workers) and starts the task again otherwise. A worker stopped with
 * Ctrl-C or SIGTERM stops its tasks (their sessions are saved) and puts their jobs back on the
 * queue the same way, without using up a retry.
 */
import { ExitCode } from "../../errors.ts"
import { findSession, type SessionSummary } from "../../session/store.ts"
import { promptTitle } from "../../session/transcript.ts"
import { errorMessage } from "../../util/error-message.ts"
import { visible } from "../../output/visible.ts"
import { budgetSpent, notStarted } from "../local.ts"
import { BatchStop, overridden, runTask, type RunFlags, type TaskResult } from "../run-task.ts"
import { clankaKey, parseQueueUrl } from "./connection.ts"
import { BatchControl } from "./control.ts"
import { startModelGate, type ModelGate } from "./gate.ts"
import type { JobOutcome, TaskJob, TaskProgress } from "./jobs.ts"
import { checkJob, checkProgress } from "./job-check.ts"
import { parseSshTarget } from "../../executor/ssh-target.ts"
import { RateLimiter } from "./limiter.ts"
import { closeWithin, connectionErrors, openRedis } from "./redis.ts"

export interface WorkerOptions {
  url: string
  flags: RunFlags
  /** The worker's own agent flags; a batch's come after them, and win. */
  concurrency: number
  /** Model requests per minute for all the queue's workers together. */
  rateLimit?: number
  signal: AbortSignal
  log: (line: string) => void
}

/**
 * How long a job's lock lasts without renewal (a worker renews it every half of that): a worker
 * that is gone is noticed within this and one stalled check (half of it again).
 * CLANKA_QUEUE_LOCK_MS changes it (every worker of a queue should use the same).
 */
function lockDuration(): number {
  const ms = Number(process.env.CLANKA_QUEUE_LOCK_MS)
  return Number.isFinite(ms) && ms >= 500 ? ms : 10_000
}

/** Why a task stops when its worker does. */
const SHUTDOWN = Symbol("worker stopping")

/** How often a running task looks at its batch's state (stop, budget). */
const WATCH_MS = 1000

/** Runs until `signal` aborts; false when it could not close cleanly (Redis went away). */
export async function runWorker(options: WorkerOptions): Promise<boolean> {
  const { log } = options
  const place = parseQueueUrl(options.url)
  const redis = await openRedis(place)
  let gate: ModelGate | undefined
  if (options.rateLimit !== undefined) gate = startModelGate(new RateLimiter(redis, clankaKey(place, "model-requests"), options.rateLimit))
  const { Worker, WaitingError, UnrecoverableError } = await import("bullmq")
  const stopping = new Set<AbortController>()
  const sshHosts = options.flags.place.flatMap((word, at, all) => (all[at - 1] === "--ssh" ? [parseSshTarget(word).host] : []))

  const work = async (job: import("bullmq").Job<TaskJob, JobOutcome>, token?: string): Promise<JobOutcome> => {
    let checked: TaskJob
    try {
      checked = checkJob(job.data, sshHosts)
    } catch (error) {
      log(`job ${visible(String(job.id))}: ${visible(errorMessage(error))}`)
      // Failed for good, not tried again.
      throw new UnrecoverableError(errorMessage(error))
    }
    const { task, batch, retries, agent } = checked
    const control = new BatchControl(redis, place, batch)
    const state = await control.state()
    if (state.stop === "interrupt") return { skipped: "interrupted" }
    if (state.capUsd !== undefined && state.spentUsd >= state.capUsd) return { result: notStarted(task, budgetSpent(state.spentUsd, state.capUsd, false)) }

    const progress = checkProgress(job.progress)
    const attemptsBefore = progress.attempts ?? 0
    let resume: { sessionId: string; why: string } | undefined
    let spentBefore: { turns: number; costUsd: number | null } | undefined
    if (progress.sessionId) {
      // Taken over from a worker that was lost: its session, if this machine can read it.
      if (attemptsBefore > retries && !progress.handedBack) return { result: lostResult(task, progress.sessionId, "the worker running it was lost and no retries are left") }
      const session = sessionHere(progress.sessionId, task)
      if (session) {
        resume = { sessionId: progress.sessionId, why: progress.handedBack ? "the worker running it was stopped" : "the worker running it was lost" }
        spentBefore = { turns: session.turns, costUsd: session.costUsd }
      } else log(`task ${label(task.id)}: session ${progress.sessionId.slice(0, 8)} of the lost worker is not in this machine's sessions directory; starting the task again`)
    }
    log(`task ${label(task.id)}: ${resume ? `resuming session ${resume.sessionId.slice(0, 8)}` : "started"}`)

    const controller = new AbortController()
    stopping.add(controller)
    let attempts = attemptsBefore
    let sessionId = resume?.sessionId
    let handedBack = false
    const save = () => job.updateProgress({ ...(sessionId ? { sessionId } : {}), attempts, ...(handedBack ? { handedBack } : {}) } satisfies TaskProgress).catch(() => {})
    // The batch's state, every second: stop when the user stopped it or its budget is spent.
    const watch = setInterval(() => {
      void control
        .state()
        .then((now) => {
          if (controller.signal.aborted) return
          if (now.stop === "interrupt") controller.abort()
          else if (now.stop === "budget" || (now.capUsd !== undefined && now.spentUsd >= now.capUsd)) {
            controller.abort(new BatchStop(budgetSpent(now.spentUsd, now.capUsd ?? now.spentUsd, true), ExitCode.failed))
          }
        })
        .catch(() => {})
    }, WATCH_MS)
    let spentHere = 0
    let result: TaskResult
    try {
      result = await runTask({
        task,
        flags: { ...options.flags, agent: overridden(options.flags.agent, agent) },
        retries,
        signal: controller.signal,
        ...(state.capUsd !== undefined ? { remainingUsd: () => state.capUsd! - state.spentUsd - spentHere } : {}),
        ...(resume ? { resume } : {}),
        attemptsBefore,
        ...(spentBefore ? { spentBefore } : {}),
        ...(gate ? { env: gate.env } : {}),
        onAttempt: (attempt) => {
          attempts = attempt
          void save()
        },
        onSession: (id) => {
          sessionId = id
          void save()
        },
        onSpend: (usd) => {
          spentHere += usd
          control.spend(usd).catch((error) => log(`batch ${batch}: cannot count spending: ${errorMessage(error)}`))
        },
        onRetry: (attempt, of, error) => log(`task ${label(task.id)}: ${visible(error)}; attempt ${attempt} of ${of}`),
      })
    } finally {
      clearInterval(watch)
      stopping.delete(controller)
    }
    if (controller.signal.reason === SHUTDOWN && result.exitCode !== ExitCode.ok && token) {
      // Stopped because this worker is: the task goes back on the queue for another worker to
      // resume, and this attempt does not count.
      attempts = Math.max(0, attempts - 1)
      handedBack = true
      await save()
      await job.moveToWait(token)
      log(`task ${label(task.id)}: put back on the queue`)
      throw new WaitingError()
    }
    log(`task ${label(task.id)}: ${result.exitCode === 0 ? "done" : `exit ${result.exitCode}: ${visible(result.error ?? "failed")}`}`)
    return { result }
  }

  const lock = lockDuration()
  const worker = new Worker<TaskJob, JobOutcome>(place.name, work, {
    connection: place.connection,
    concurrency: options.concurrency,
    lockDuration: lock,
    stalledInterval: Math.max(250, Math.round(lock / 2)),
    // A job whose workers keep dying (a task that kills its machine) fails in the end.
    maxStalledCount: 2,
  })
  worker.on("error", connectionErrors(log))
  await worker.waitUntilReady()
  log(`waiting for tasks on ${place.shown} (${options.concurrency} at a time${options.rateLimit !== undefined ? `, ${options.rateLimit} model requests a minute for all workers` : ""})`)
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve()
    options.signal.addEventListener("abort", () => resolve(), { once: true })
  })
  log(stopping.size > 0 ? `stopping: ${stopping.size} running task${stopping.size === 1 ? " goes" : "s go"} back on the queue` : "stopping")
  const busy = stopping.size > 0
  for (const controller of stopping) controller.abort(SHUTDOWN)
  // Running tasks wind down within STOP_GRACE_MS of their SIGINT; then the jobs go back.
  const clean = await closeWithin(busy ? 40_000 : 5000, worker)
  await gate?.close()
  redis.disconnect()
  return clean
}

/**
 * The session, when it is in this machine's sessions directory, nobody here is running it, and it
 * is this task's: named in full and started with its prompt. A job's progress is in Redis, where
 * anyone who can write jobs can write it too; it must not open another task's (or the worker
 * owner's) session with its history.
 */
function sessionHere(id: string, task: TaskJob["task"]): SessionSummary | undefined {
  try {
    const session = findSession(id)
    return session.status === "running" || session.id !== id || session.header.prompt !== promptTitle(task.prompt) ? undefined : session
  } catch {
    return undefined
  }
}

function lostResult(task: TaskJob["task"], sessionId: string, error: string): TaskResult {
  return { id: task.id, sessionId, exitCode: ExitCode.executorLost, costUsd: null, turns: 0, durationMs: 0, summary: null, error }
}

function label(id: string | number): string {
  return typeof id === "number" ? String(id) : JSON.stringify(id)
}
