import type { HunkLine } from "./types.ts"

/** A `@@ -a,b +c,d @@` header: the old range is what matters; the new one is not trusted. */
export const HUNK_RANGE = /^@@+ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@+/

/** 0-based index where a header says the old lines start: `-a,0` inserts after line a. */
export function hunkHint(range: RegExpExecArray): number {
  const start = Number(range[1])
  return range[2] !== undefined && Number(range[2]) === 0 ? start : Math.max(0, start - 1)
}

/** One line of a hunk body. A context line whose leading space was lost (editors trim blank lines) stays context. */
export function hunkLine(body: string): HunkLine {
  const op = body[0]
  if (op === " " || op === "-" || op === "+") return { op, text: body.slice(1) }
  return { op: " ", text: body }
}
