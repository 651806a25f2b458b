import { ModelError } from "../providers/model.ts"
import { errorMessage } from "../util/error-message.ts"
import { seconds } from "../util/duration.ts"

export interface RetryPolicy {
  /** Retries after the first attempt (default 6). */
  maxRetries: number
  /** First backoff in milliseconds; doubles each retry (default 1000). */
  baseMs: number
  /** Upper bound of one backoff (default 30 s). */
  maxMs: number
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 6, baseMs: 1000, maxMs: 30_000 }

/** Exponential backoff with full jitter in its upper half, so many clients do not retry in step. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** attempt)
  return ceiling / 2 + Math.random() * (ceiling / 2)
}

/**
 * The wait before retry `attempt`: the backoff, or longer when the server asked (Retry-After), but
 * never past the policy's longest backoff, so a server asking for days cannot stall the run.
 */
export function retryWaitMs(policy: RetryPolicy, attempt: number, retryAfterMs?: number): number {
  return Math.max(backoffMs(policy, attempt), Math.min(retryAfterMs ?? 0, policy.maxMs))
}

/** What an ErrorRetry says when the server asked for a longer wait than clanka gives it. */
export function cutWaitNote(policy: RetryPolicy, retryAfterMs?: number): string {
  return retryAfterMs !== undefined && retryAfterMs > policy.maxMs
    ? ` (the server asked to wait ${seconds(retryAfterMs)}; clanka waits at most ${seconds(policy.maxMs)})`
    : ""
}

/** Network failures (connection reset, DNS, socket closed) are worth another try. */
export function asModelError(error: unknown): ModelError {
  if (error instanceof ModelError) return error
  const message = errorMessage(error)
  return new ModelError(message.split("\n")[0] || "model request failed", true)
}

