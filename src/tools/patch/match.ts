/**
 * Finding a hunk's old lines in a file, tolerant of what models get wrong. Levels are tried in
 * order, each looser than the last; the first level with a match wins.
 */
export const LEVELS = ["exact", "trailing whitespace", "indentation", "punctuation"] as const
export type Level = 0 | 1 | 2 | 3

// Typographic characters models produce where source code has ASCII.
const PUNCTUATION: Record<string, string> = {
  "\u2018": "'", "\u2019": "'", "\u201A": "'", "\u201B": "'", "\u2032": "'",
  "\u201C": '"', "\u201D": '"', "\u201E": '"', "\u201F": '"', "\u2033": '"', "\u00AB": '"', "\u00BB": '"',
  "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
  "\u00A0": " ", "\u2002": " ", "\u2003": " ", "\u2009": " ", "\u202F": " ", "\u3000": " ",
  "\u2026": "...",
}
const PUNCTUATION_RE = new RegExp(`[${Object.keys(PUNCTUATION).join("")}]`, "g")

/** Punctuation normalised, surrounding whitespace dropped, inner runs of whitespace collapsed. */
export function looseKey(line: string): string {
  return line.replace(PUNCTUATION_RE, (ch) => PUNCTUATION[ch]!).trim().replace(/\s+/g, " ")
}

const KEYS: Array<(line: string) => string> = [
  (line) => line,
  (line) => line.trimEnd(),
  (line) => line.trim(),
  looseKey,
]

/** The lines of one file with their comparison keys, computed per level on first use. */
export class LineIndex {
  private readonly keys: Array<string[] | undefined> = []
  constructor(readonly lines: readonly string[]) {}

  get length(): number {
    return this.lines.length
  }

  keysAt(level: Level): string[] {
    return (this.keys[level] ??= level === 0 ? (this.lines as string[]) : this.lines.map(KEYS[level]!))
  }
}

export interface Range {
  start: number
  end: number
}

export interface Located {
  start: number
  level: Level
}

export interface LocateOptions {
  /** Search from here on first: hunks apply top to bottom. */
  from: number
  /** Where the hunk's header says it is; the nearest match wins. */
  hint?: number
  /** The old lines should end at the end of the file. */
  endOfFile: boolean
  /** Regions already claimed by earlier hunks of the same file. */
  taken: readonly Range[]
}

/**
 * Finds `old` in the file. Each level first looks at or after `from` (nearest to the hint, or
 * the first one); only if nothing is found anywhere after it, a free region before it is accepted,
 * so hunks given out of order still apply.
 */
export function locate(index: LineIndex, old: readonly string[], options: LocateOptions): Located | undefined {
  const last = index.length - old.length
  if (old.length === 0 || last < 0) return undefined
  for (const level of [0, 1, 2, 3] as Level[]) {
    const found = locateAt(index, old, level, options, last)
    if (found !== undefined) return { start: found, level }
  }
  for (const level of [0, 1, 2, 3] as Level[]) {
    const keys = index.keysAt(level)
    const target = old.map(KEYS[level]!)
    for (let start = Math.min(options.from - 1, last); start >= 0; start--) {
      if (matchesAt(keys, target, start) && isFree(options.taken, start, start + old.length)) return { start, level }
    }
  }
  return undefined
}

function locateAt(index: LineIndex, old: readonly string[], level: Level, options: LocateOptions, last: number): number | undefined {
  const keys = index.keysAt(level)
  const target = old.map(KEYS[level]!)
  const from = Math.max(0, options.from)
  const ok = (start: number) => matchesAt(keys, target, start) && isFree(options.taken, start, start + old.length)
  if (options.endOfFile && last >= from && ok(last)) return last
  if (options.hint === undefined || options.hint <= from) {
    for (let start = from; start <= last; start++) if (ok(start)) return start
    return undefined
  }
  // Outward from the hint, staying at or after `from`.
  const hint = Math.min(options.hint, last)
  for (let distance = 0; ; distance++) {
    const after = hint + distance
    const before = hint - distance
    if (after > last && before < from) return undefined
    if (after <= last && ok(after)) return after
    if (distance > 0 && before >= from && ok(before)) return before
  }
}

function matchesAt(keys: readonly string[], target: readonly string[], start: number): boolean {
  for (let i = 0; i < target.length; i++) if (keys[start + i] !== target[i]) return false
  return true
}

function isFree(taken: readonly Range[], start: number, end: number): boolean {
  return taken.every((range) => end <= range.start || start >= range.end)
}

/**
 * Finds an `@@ context` line at or after `from`: the same levels, and at last any line that
 * contains the text (models often quote only the start of a function's signature).
 */
export function locateAnchor(index: LineIndex, anchor: string, from: number): number | undefined {
  for (const level of [0, 1, 2, 3] as Level[]) {
    const keys = index.keysAt(level)
    const target = KEYS[level]!(anchor)
    for (let i = from; i < keys.length; i++) if (keys[i] === target) return i
  }
  const loose = looseKey(anchor)
  if (loose === "") return undefined
  const keys = index.keysAt(3)
  for (let i = from; i < keys.length; i++) if (keys[i]!.includes(loose)) return i
  return undefined
}
