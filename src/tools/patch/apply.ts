import { closestRegion } from "./closest.ts"
import { LineIndex, locate, locateAnchor, type Level, type Range } from "./match.ts"
import type { TextFile } from "./text.ts"
import { newLines, oldLines, type Hunk, type HunkLine } from "./types.ts"

/** Why one hunk could not be placed, with what the error message shows. */
export interface HunkFailure {
  /** 1-based position of the hunk in its file's changes, and how many there are. */
  number: number
  total: number
  anchors: string[]
  /** The hunk's old lines (context and removed), as the patch wrote them. */
  old: string[]
  /** An `@@` context line that was not found either. */
  missingAnchor?: string
  /** 0-based start of the most similar region of the file. */
  closest?: number
  /** 0-based line where the hunk's new lines already are: the patch was probably applied before. */
  alreadyAt?: number
}

interface Placement {
  start: number
  end: number
  lines: HunkLine[]
  level: Level
  hunk: Hunk
}

export type ApplyResult = { ok: true; file: TextFile } | { ok: false; failures: HunkFailure[] }

/** Places every hunk (top to bottom, tolerant matching), then builds the new text in one pass. */
export function applyHunks(file: TextFile, hunks: readonly Hunk[]): ApplyResult {
  const index = new LineIndex(file.lines)
  const n = file.lines.length
  const placements: Placement[] = []
  const failures: HunkFailure[] = []
  const taken: Range[] = []
  let cursor = 0
  let offset = 0 // how far the file has drifted from the line numbers in `@@ -a,b` headers

  hunks.forEach((hunk, k) => {
    let from = cursor
    let anchorEnd: number | undefined
    let missingAnchor: string | undefined
    for (const anchor of hunk.anchors) {
      const at = locateAnchor(index, anchor, anchorEnd === undefined ? cursor : anchorEnd) ?? (anchorEnd === undefined ? locateAnchor(index, anchor, 0) : undefined)
      if (at === undefined) {
        missingAnchor = anchor
        break
      }
      from = at // the hunk may begin with the anchor line itself
      anchorEnd = at + 1
    }
    const hint = hunk.hint === undefined ? undefined : hunk.hint + offset
    const old = oldLines(hunk)
    // Added lines alone are placed by their anchor: without it there is nowhere to put them.
    const lost = old.length === 0 && missingAnchor !== undefined
    const placement = lost ? undefined : place(index, hunk, { from, hint, anchorEnd: missingAnchor ? undefined : anchorEnd, taken, n })
    if (!placement) {
      failures.push({
        number: k + 1,
        total: hunks.length,
        anchors: hunk.anchors,
        old,
        missingAnchor,
        closest: closestRegion(index, lost ? [missingAnchor!] : old, hint ?? from),
        alreadyAt: alreadyApplied(index, hunk),
      })
      return
    }
    placements.push(placement)
    taken.push({ start: placement.start, end: placement.end })
    cursor = placement.end
    if (hunk.hint !== undefined) offset = placement.start - hunk.hint
  })
  if (failures.length > 0) return { ok: false, failures }
  return { ok: true, file: build(file, placements) }
}

function place(
  index: LineIndex,
  hunk: Hunk,
  at: { from: number; hint?: number; anchorEnd?: number; taken: Range[]; n: number },
): Placement | undefined {
  const old = oldLines(hunk)
  if (old.length === 0) {
    // Pure insertion: after the anchor, at the hinted line, or at the end of the file.
    const position = hunk.endOfFile ? at.n : (at.anchorEnd ?? (at.hint !== undefined ? Math.min(Math.max(at.hint, 0), at.n) : at.n))
    return { start: position, end: position, lines: hunk.lines, level: 0, hunk }
  }
  // An @@ line selects the region after it; failing that, the hunk may begin with the line itself.
  const starts = at.anchorEnd === undefined ? [at.from] : [at.anchorEnd, at.anchorEnd - 1]
  const bounded = at.anchorEnd !== undefined
  for (const from of starts) {
    const found = locate(index, old, { from, hint: at.hint, endOfFile: hunk.endOfFile, taken: at.taken, bounded })
    if (found) return { start: found.start, end: found.start + old.length, lines: hunk.lines, level: found.level, hunk }
  }

  // Blank context lines at the edges of a hunk are often artefacts of how the patch was typed.
  const lines = [...hunk.lines]
  let dropped = 0
  while (lines.length > 0 && isBlankContext(lines[0]!)) {
    lines.shift()
    dropped++
  }
  while (lines.length > 0 && isBlankContext(lines[lines.length - 1]!)) lines.pop()
  const trimmed = lines.filter((line) => line.op !== "+").map((line) => line.text)
  if (trimmed.length === old.length || trimmed.length === 0) return undefined
  const hint = at.hint === undefined ? undefined : at.hint + dropped
  for (const from of starts) {
    const retry = locate(index, trimmed, { from, hint, endOfFile: hunk.endOfFile, taken: at.taken, bounded })
    if (retry) return { start: retry.start, end: retry.start + trimmed.length, lines, level: retry.level, hunk }
  }
  return undefined
}

const isBlankContext = (line: HunkLine) => line.op === " " && line.text.trim() === ""

function alreadyApplied(index: LineIndex, hunk: Hunk): number | undefined {
  if (!hunk.lines.some((line) => line.op === "+")) return undefined
  const lines = newLines(hunk)
  // One short line found somewhere proves nothing; a region of two or more lines does.
  if (lines.filter((line) => line.trim() !== "").length < 2) return undefined
  return locate(index, lines, { from: 0, endOfFile: false, taken: [] })?.start
}

function build(file: TextFile, placements: Placement[]): TextFile {
  placements.sort((a, b) => a.start - b.start || a.end - b.end)
  const lines: string[] = []
  const cr: boolean[] = []
  let finalNewline = file.finalNewline || file.lines.length === 0
  let position = 0
  for (const placement of placements) {
    for (; position < placement.start; position++) {
      lines.push(file.lines[position]!)
      cr.push(file.cr[position]!)
    }
    const indent = placement.level >= 2 ? reindenter(file.lines, placement) : (text: string) => text
    for (const line of placement.lines) {
      if (line.op === "+") {
        lines.push(indent(line.text))
        cr.push(file.crlf)
      } else {
        // Kept lines keep the file's own text: the patch's copy may differ in whitespace or quotes.
        if (line.op === " ") {
          lines.push(file.lines[position]!)
          cr.push(file.cr[position]!)
        }
        position++
      }
    }
    if (placement.end === file.lines.length) {
      if (placement.hunk.newNoNewline) finalNewline = false
      else if (placement.hunk.oldNoNewline) finalNewline = true
    }
  }
  for (; position < file.lines.length; position++) {
    lines.push(file.lines[position]!)
    cr.push(file.cr[position]!)
  }
  return { ...file, lines, cr, finalNewline }
}

const leading = (text: string) => /^[ \t]*/.exec(text)![0]

/**
 * The hunk matched only with indentation ignored: indent its added lines the way the file is
 * indented, judging from how the file's copy of the old lines differs from the patch's.
 */
function reindenter(fileLines: readonly string[], placement: Placement): (text: string) => string {
  const mapping = new Map<string, string>()
  // undefined: no pair seen yet; null: the pairs disagree.
  let add: string | null | undefined
  let remove: string | null | undefined
  let position = placement.start
  for (const line of placement.lines) {
    if (line.op === "+") continue
    const fileLine = fileLines[position++]!
    if (line.text.trim() === "" || fileLine.trim() === "") continue
    const theirs = leading(line.text)
    const ours = leading(fileLine)
    if (mapping.has(theirs) && mapping.get(theirs) !== ours) return (text) => text
    mapping.set(theirs, ours)
    const extra = ours.endsWith(theirs) ? ours.slice(0, ours.length - theirs.length) : null
    add = add === undefined || add === extra ? extra : null
    const less = theirs.endsWith(ours) ? theirs.slice(0, theirs.length - ours.length) : null
    remove = remove === undefined || remove === less ? less : null
  }
  return (text) => {
    if (text.trim() === "") return text
    const theirs = leading(text)
    const body = text.slice(theirs.length)
    const mapped = mapping.get(theirs)
    if (mapped !== undefined) return mapped + body
    if (add) return add + text
    if (remove && theirs.startsWith(remove)) return text.slice(remove.length)
    return text
  }
}
