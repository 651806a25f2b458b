/**
 * Finding a hunk's old lines in a file, tolerant of what models get wrong. Levels are tried in
 * order, each looser than the last; the first level with a match wins.
 */
/** 0 exact, 1 ignoring trailing whitespace, 2 ignoring indentation, 3 with punctuation normalised. */
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

/** The lines of one file with their comparison keys and where each key occurs, built per level on first use. */
export class LineIndex {
  private readonly keys: Array<string[] | undefined> = []
  private readonly positions: Array<Map<string, number[]> | undefined> = []
  constructor(readonly lines: readonly string[]) {}

  get length(): number {
    return this.lines.length
  }

  keysAt(level: Level): string[] {
    return (this.keys[level] ??= level === 0 ? (this.lines as string[]) : this.lines.map(KEYS[level]!))
  }

  /** Line numbers (ascending) of every key at this level. */
  positionsAt(level: Level): Map<string, number[]> {
    let map = this.positions[level]
    if (map) return map
    map = new Map()
    const keys = this.keysAt(level)
    for (let i = 0; i < keys.length; i++) {
      const list = map.get(keys[i]!)
      if (list) list.push(i)
      else map.set(keys[i]!, [i])
    }
    return (this.positions[level] = map)
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
  /** Nothing before `from` is accepted: an @@ line placed the hunk after it. */
  bounded?: boolean
}

/**
 * Finds `old` in the file. Each level first looks at or after `from` (nearest to the hint, or
 * the first one); only if nothing is found anywhere after it, a free region before it is accepted,
 * so hunks given out of order still apply (not when `bounded`).
 */
export function locate(index: LineIndex, old: readonly string[], options: LocateOptions): Located | undefined {
  if (old.length === 0 || old.length > index.length) return undefined
  // Built on demand: most hunks match exactly, and the looser keys are never computed.
  const candidates: Candidates[] = []
  for (const level of [0, 1, 2, 3] as Level[]) {
    const found = (candidates[level] = new Candidates(index, old, level, options.taken))
    const start = found.after(options)
    if (start !== undefined) return { start, level }
  }
  if (options.bounded) return undefined
  for (const found of candidates) {
    const start = found.before(options.from)
    if (start !== undefined) return { start, level: found.level }
  }
  return undefined
}

/**
 * Where `old` can start at one level. Candidates come from the positions of its rarest line,
 * so a hunk costs time in proportion to its look-alikes, not to the size of the file.
 */
class Candidates {
  private readonly target: string[]
  private readonly keys: string[]
  /** Ascending candidate starts; undefined if some old line does not occur at all. */
  private readonly starts: number[] | undefined
  private readonly last: number

  constructor(
    index: LineIndex,
    private readonly old: readonly string[],
    readonly level: Level,
    private readonly taken: readonly Range[],
  ) {
    this.target = old.map(KEYS[level]!)
    this.keys = index.keysAt(level)
    this.last = index.length - old.length
    const positions = index.positionsAt(level)
    let rarest: number[] | undefined
    let offset = 0
    for (let j = 0; j < this.target.length; j++) {
      const list = positions.get(this.target[j]!)
      if (!list) return
      if (!rarest || list.length < rarest.length) {
        rarest = list
        offset = j
      }
    }
    this.starts = rarest!.map((position) => position - offset).filter((start) => start >= 0 && start <= this.last)
  }

  private ok(start: number): boolean {
    for (let i = 0; i < this.target.length; i++) if (this.keys[start + i] !== this.target[i]) return false
    const end = start + this.old.length
    return this.taken.every((range) => end <= range.start || start >= range.end)
  }

  /** At or after `from`: at the end of the file if asked, else nearest the hint, else the first. */
  after({ from, hint, endOfFile }: LocateOptions): number | undefined {
    const starts = this.starts
    if (!starts) return undefined
    if (endOfFile && this.last >= from && starts.includes(this.last) && this.ok(this.last)) return this.last
    let up = firstAtLeast(starts, Math.max(from, hint ?? from))
    let down = up - 1
    if (hint === undefined || hint <= from) {
      for (; up < starts.length; up++) if (this.ok(starts[up]!)) return starts[up]
      return undefined
    }
    // Outward from the hint, staying at or after `from`.
    while (up < starts.length || (down >= 0 && starts[down]! >= from)) {
      const takeUp = up < starts.length && !(down >= 0 && starts[down]! >= from && hint - starts[down]! < starts[up]! - hint)
      const start = takeUp ? starts[up++]! : starts[down--]!
      if (this.ok(start)) return start
    }
    return undefined
  }

  /** Before `from`, nearest first: a hunk given out of order. */
  before(from: number): number | undefined {
    const starts = this.starts
    if (!starts) return undefined
    for (let i = firstAtLeast(starts, from) - 1; i >= 0; i--) if (this.ok(starts[i]!)) return starts[i]
    return undefined
  }
}

function firstAtLeast(sorted: readonly number[], value: number): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const middle = (low + high) >> 1
    if (sorted[middle]! < value) low = middle + 1
    else high = middle
  }
  return low
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
