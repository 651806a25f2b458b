/**
 * One task to its end: attempts of `clanka run`, where an attempt whose executor was lost (exit 3)
 * is followed by another that resumes its session (`--resume`), up to `retries` more. The same
 * code serves `clanka batch` and `clanka worker`.
 */
import { resolve } from "node:path"
import { ExitCode } from "../errors.ts"
import { runAttempt } from "./attempt.ts"
import type { Task } from "./tasks.ts"

/** The line printed for each finished task. */
export interface TaskResult {
  id: string | number
  sessionId: string | null
  exitCode: number
  costUsd: number | null
  turns: number
  durationMs: number
  summary: string | null
  error: string | null
}

/** The `clanka run` flags every task gets. */
export interface RunFlags {
  /** Where scripts run (-C, --ssh): replaced by a task's own `dir` or `ssh`. */
  place: string[]
  /** The other executor and sandbox flags. */
  executor: string[]
  /** The agent flags (`--name value` pairs): a task's model and maxTurns replace theirs. */
  agent: string[]
  /** What a task's relative `dir` is relative to (the batch's -C, else the current directory). */
  base: string
}

/** Why a batch stops a running task; the result says so with this exit code. */
export class BatchStop extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message)
  }
}

export interface RunTaskOptions {
  task: Task
  flags: RunFlags
  retries: number
  /** Aborted (with a BatchStop reason, or none for Ctrl-C) to stop the task. */
  signal: AbortSignal
  /** What the batch may still spend, asked before each attempt; undefined without a cap. */
  remainingUsd?: () => number | undefined
  /** A session an earlier attempt left (a worker that was lost): the first attempt resumes it. */
  resume?: { sessionId: string; why: string }
  /** Attempts made before (by a worker that was lost): they count against the retries. */
  attemptsBefore?: number
  /** What those attempts spent (as their session recorded it): the result includes it. */
  spentBefore?: { turns: number; costUsd: number | null }
  env?: Record<string, string | undefined>
  onSession?: (sessionId: string) => void
  /** Called with each increase of the task's cost. */
  onSpend?: (usd: number) => void
  onRetry?: (attempt: number, attempts: number, error: string) => void
  /** Called as each attempt starts, with its number (1 for the first). */
  onAttempt?: (attempt: number) => void
}

/** The prompt of an attempt that goes on from a lost one: the history already holds the task. */
export function continuation(why: string): string {
  return `The previous attempt at this task stopped: ${why}. This session goes on from where it was. Files written before may or may not be there; check what was done, then finish the task.`
}

export async function runTask(options: RunTaskOptions): Promise<TaskResult> {
  const { task, flags, signal } = options
  const started = Date.now()
  const attempts = options.retries + 1
  const before = options.spentBefore ?? { turns: 0, costUsd: 0 }
  const result: TaskResult = { id: task.id, sessionId: options.resume?.sessionId ?? null, exitCode: ExitCode.failed, costUsd: before.costUsd, turns: before.turns, durationMs: 0, summary: null, error: null }
  let resume = options.resume
  for (let attempt = (options.attemptsBefore ?? 0) + 1; ; attempt++) {
    options.onAttempt?.(attempt)
    const budget = attemptBudget(task, result.costUsd, options.remainingUsd?.())
    if (budget !== undefined && budget <= 0) {
      result.error ??= "not started: no budget left"
      break
    }
    const args = [
      ...(task.dir !== undefined ? ["-C", resolve(flags.base, task.dir)] : task.ssh !== undefined ? ["--ssh", task.ssh] : flags.place),
      ...flags.executor,
      ...overridden(flags.agent, [...(task.model !== undefined ? ["--model", task.model] : []), ...(task.maxTurns !== undefined ? ["--max-turns", String(task.maxTurns)] : [])]),
      ...(budget !== undefined ? ["--max-budget-usd", String(budget)] : []),
      ...(resume ? ["--resume", resume.sessionId] : []),
      "-",
    ]
    let charged = 0
    const outcome = await runAttempt({
      args,
      prompt: resume ? continuation(resume.why) : task.prompt,
      ...(options.env ? { env: options.env } : {}),
      signal,
      onSession: (id) => {
        if (id === result.sessionId) return
        result.sessionId = id
        options.onSession?.(id)
      },
      onCost: (usd) => {
        if (usd > charged) options.onSpend?.(usd - charged)
        charged = Math.max(charged, usd)
      },
    })
    result.exitCode = outcome.exitCode
    result.costUsd = result.costUsd === null || outcome.costUsd === null ? null : round(result.costUsd + outcome.costUsd)
    result.turns += outcome.turns
    result.summary = outcome.summary
    result.error = outcome.error
    if (outcome.sessionId) result.sessionId = outcome.sessionId
    if (outcome.exitCode !== ExitCode.executorLost || signal.aborted || attempt >= attempts) break
    options.onRetry?.(attempt + 1, attempts, outcome.error ?? "executor lost")
    // A session to go on from, when the lost attempt got as far as starting one.
    resume = result.sessionId ? { sessionId: result.sessionId, why: `its executor was lost (${outcome.error ?? "exit 3"})` } : undefined
    await pause(500 * attempt, signal)
    if (signal.aborted) break
  }
  // The batch stopped it (its budget): said as such, whatever the child made of the interrupt.
  if (signal.aborted && signal.reason instanceof BatchStop && result.exitCode !== ExitCode.ok) {
    result.exitCode = signal.reason.exitCode
    result.error = signal.reason.message
  }
  result.durationMs = Date.now() - started
  return result
}

/**
 * `--name value` pairs with those `over` names replaced by its own (a flag given twice is a
 * usage error for clanka run).
 */
export function overridden(base: string[], over: string[]): string[] {
  const names = new Set(over.filter((_, index) => index % 2 === 0))
  const kept: string[] = []
  for (let index = 0; index < base.length; index += 2) if (!names.has(base[index]!)) kept.push(base[index]!, base[index + 1]!)
  return [...kept, ...over]
}

/** The budget of the next attempt: what is left of the task's own and of the batch's. */
function attemptBudget(task: Task, spent: number | null, batchLeft: number | undefined): number | undefined {
  const own = task.maxBudgetUsd === undefined ? undefined : task.maxBudgetUsd - (spent ?? 0)
  const left = own === undefined ? batchLeft : batchLeft === undefined ? own : Math.min(own, batchLeft)
  return left === undefined ? undefined : round(left)
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener("abort", done)
      resolve()
    }
    signal.addEventListener("abort", done, { once: true })
  })
}
