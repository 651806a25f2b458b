/**
 * The base URL variables (ANTHROPIC_BASE_URL, OPENAI_BASE_URL) are checked when the model is
 * resolved, before any request: a value that is not an http(s) URL would otherwise fail every
 * request as a "network error" and be retried for half a minute.
 */
import { UsageError } from "../errors.ts"
import type { Env } from "./resolve.ts"

/** The variable's value when it is set: an http or https URL, else a UsageError naming the variable. */
export function baseUrlFrom(env: Env, variable: string, example: string): string | undefined {
  const value = env[variable]
  if (!value) return undefined
  let protocol: string | undefined
  try {
    protocol = new URL(value).protocol
  } catch {
    // reported below
  }
  if (protocol !== "http:" && protocol !== "https:") {
    throw new UsageError(`${variable} is not an http(s) URL: "${value}"; set it to one such as ${example}, or unset it`)
  }
  return value
}
