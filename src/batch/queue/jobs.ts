/** What a queued task carries from `clanka batch --queue` to a `clanka worker`, and back. */
import type { TaskResult } from "../run-task.ts"
import type { Task } from "../tasks.ts"

export const JOB_NAME = "clanka-task"

export interface TaskJob {
  /** The batch it belongs to (its control hash, its job ids). */
  batch: string
  task: Task
  /** The batch's agent flags (model, turns, system text), as `clanka run` arguments. */
  agent: string[]
  retries: number
}

/**
 * Kept in the job's progress as the task goes: the session it runs in and the attempts started,
 * so that a worker that takes the job over from a lost one resumes that session.
 */
export interface TaskProgress {
  sessionId?: string
  attempts?: number
  /** Its worker was stopped and put it back (rather than being lost). */
  handedBack?: boolean
}

/** A job's return value: the result line, or nothing when the batch was interrupted before it ran. */
export type JobOutcome = { result: TaskResult } | { skipped: "interrupted" }

/** One job id per task of a batch (BullMQ ids may not hold ":"). */
export function jobId(batch: string, index: number): string {
  return `${batch}-${index}`
}
