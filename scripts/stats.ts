// Figures the benchmarks print.

/** The value `p` (0..1) of the way up the sorted values; 0.5 is the median. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!
}

export function median(values: number[]): number {
  return percentile(values, 0.5)
}
