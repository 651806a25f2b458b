import { UsageError } from "../errors.ts"

/**
 * A positive amount of US dollars as a flag gives it: digits with an optional decimal part, as
 * a person writes money (`Number` alone would take `0x10` as 16 and `1e3` as 1000).
 */
export function dollarsFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const usd = Number(value.trim())
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(value.trim()) || !(usd > 0)) throw new UsageError(`${flag} takes a positive amount in US dollars, got "${value}"`)
  return usd
}
