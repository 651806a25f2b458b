import { UsageError } from "../errors.ts"

/** The --max-scripts value (commands.ts declares the flag); undefined when absent. */
export function maxScripts(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const count = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN
  if (!Number.isSafeInteger(count) || count < 1) throw new UsageError(`--max-scripts takes a whole number of scripts from 1 up, got "${value}"`)
  return count
}
