/**
 * `clanka batch` on this machine: up to `concurrency` tasks at once, each a `clanka run` child,
 * under one budget for the whole batch. Once the batch has spent its budget no task starts (each
 * is reported as not started) and the running ones are stopped (their sessions are saved).
 */
import { ExitCode } from "../errors.ts"
import type { Progress } from "./progress.ts"
import { BatchStop, runTask, type RunFlags, type TaskResult } from "./run-task.ts"
import type { Task } from "./tasks.ts"

export interface LocalBatch {
  tasks: Task[]
  flags: RunFlags
  concurrency: number
  retries: number
  /** --max-budget-usd of the whole batch. */
  capUsd?: number
  /** Ctrl-C: running tasks stop (exit 130), the others do not start and are not reported. */
  signal: AbortSignal
  print: (result: TaskResult) => void
  progress: Progress
}

/** The message of a task the budget kept from running or stopped. */
export function budgetSpent(spentUsd: number, capUsd: number, started: boolean): string {
  return `${started ? "stopped" : "not started"}: the batch has cost $${spentUsd.toFixed(4)}, which reaches its budget of $${capUsd} (--max-budget-usd)`
}

/** A task the budget kept from starting. */
export function notStarted(task: Task, message: string): TaskResult {
  return { id: task.id, sessionId: null, exitCode: ExitCode.failed, costUsd: 0, turns: 0, durationMs: 0, summary: null, error: message }
}

export async function runLocalBatch(batch: LocalBatch): Promise<TaskResult[]> {
  const { tasks, capUsd, progress } = batch
  const results: TaskResult[] = []
  const running = new Set<AbortController>()
  let spent = 0
  const overBudget = () => capUsd !== undefined && spent >= capUsd
  const onSpend = (usd: number) => {
    spent += usd
    progress.spend(usd)
    if (!overBudget()) return
    for (const controller of running) if (!controller.signal.aborted) controller.abort(new BatchStop(budgetSpent(spent, capUsd!, true), ExitCode.failed))
  }
  const interrupt = () => {
    for (const controller of running) if (!controller.signal.aborted) controller.abort()
  }
  batch.signal.addEventListener("abort", interrupt, { once: true })
  const report = (result: TaskResult) => {
    results.push(result)
    batch.print(result)
  }
  let next = 0
  const lane = async () => {
    while (next < tasks.length && !batch.signal.aborted) {
      const task = tasks[next++]!
      if (overBudget()) {
        const result = notStarted(task, budgetSpent(spent, capUsd!, false))
        report(result)
        progress.finish(result, false)
        continue
      }
      const controller = new AbortController()
      running.add(controller)
      progress.start()
      const result = await runTask({
        task,
        flags: batch.flags,
        retries: batch.retries,
        signal: controller.signal,
        ...(capUsd === undefined ? {} : { remainingUsd: () => capUsd - spent }),
        onSpend,
        onRetry: (attempt, attempts, error) => progress.retry(task.id, attempt, attempts, error),
      })
      running.delete(controller)
      report(result)
      progress.finish(result)
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.min(batch.concurrency, tasks.length) }, lane))
  } finally {
    batch.signal.removeEventListener("abort", interrupt)
  }
  return results
}
