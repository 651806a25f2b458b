/** A duration for messages: `0.3 s`, `120 s`, `1.25 s` (at most `digits` decimals, no trailing zeros). */
export function seconds(ms: number, digits = 3): string {
  return `${Number((ms / 1000).toFixed(digits))} s`
}
