/**
 * Durations given in seconds on the command line. Timers hold at most 2^31 - 1 ms: a longer one
 * fires after 1 ms with a warning, so a value beyond that is refused rather than taken.
 */
import { UsageError } from "../errors.ts"

/** The longest timer, in milliseconds (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1

const MAX_SECONDS = Math.floor(MAX_TIMER_MS / 1000)

/** `--flag SECONDS` in milliseconds (undefined when the flag was not given); else a UsageError. */
export function secondsFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const ms = Math.round(Number(value) * 1000)
  if (value.trim() === "" || !(ms >= 1 && ms <= MAX_SECONDS * 1000)) {
    throw new UsageError(`${flag} takes a number of seconds from 0.001 to ${MAX_SECONDS} (about 24 days), got "${value}"`)
  }
  return ms
}
