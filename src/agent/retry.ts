import { ModelError } from "../providers/model.ts"
import { errorMessage } from "../util/error-message.ts"

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

/** Network failures (connection reset, DNS, socket closed) are worth another try. */
export function asModelError(error: unknown): ModelError {
  if (error instanceof ModelError) return error
  const message = errorMessage(error)
  return new ModelError(message.split("\n")[0] || "model request failed", true)
}

