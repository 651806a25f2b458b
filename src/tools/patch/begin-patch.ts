import { ToolError } from "../../errors.ts"
import { HUNK_RANGE, hunkHint, hunkLine } from "./hunk.ts"
import type { FileChange, Hunk } from "./types.ts"

const FILE_HEADER = /^\s*\*\*\* (Add|Update|Delete) File:\s*(.*?)\s*$/
const MOVE_TO = /^\s*\*\*\* Move to:\s*(.*?)\s*$/

/**
 * Parses the `*** Begin Patch` format. Tolerant of what models get wrong: a missing
 * `*** End Patch`, text around the patch, context lines without their leading space.
 */
export function parseBeginPatch(lines: string[]): FileChange[] {
  const changes: FileChange[] = []
  let i = lines.findIndex((line) => line.trim() === "*** Begin Patch")
  i = i < 0 ? lines.findIndex((line) => FILE_HEADER.test(line)) : i + 1

  const atSectionEnd = (index: number) => {
    const line = lines[index]!
    return FILE_HEADER.test(line) || line.trim() === "*** End Patch" || line === "```"
  }
  const last = lines.findLastIndex((line) => line.trim() !== "")
  // In the changes to a file a line starting with a space is context even when it reads like a file
  // header or `*** End Patch` (a file that documents patches); only a padded `*** End Patch` that
  // closes the whole patch ends them.
  const atUpdateEnd = (index: number) => {
    const line = lines[index]!
    if (line.startsWith(" ")) return index === last && line.trim() === "*** End Patch"
    return atSectionEnd(index)
  }

  while (i < lines.length) {
    const line = lines[i]!
    if (line.trim() === "*** End Patch" || line === "```") break
    const header = FILE_HEADER.exec(line)
    if (!header) {
      if (line.trim() === "") {
        i++
        continue
      }
      throw new ToolError(`patch line ${i + 1}: expected "*** Add File:", "*** Update File:" or "*** Delete File:", found "${line}"`)
    }
    const kind = header[1]!
    const path = cleanPath(header[2]!)
    if (!path) throw new ToolError(`patch line ${i + 1}: "${line.trim()}" names no file`)
    const headerLine = i
    i++

    if (kind === "Delete") {
      changes.push({ type: "delete", path })
      continue
    }

    if (kind === "Add") {
      const raw: string[] = []
      while (i < lines.length && !atSectionEnd(i)) raw.push(lines[i++]!)
      // Blank lines before the next header are layout, not content: real content lines have "+".
      while (raw.length > 0 && raw[raw.length - 1]!.trim() === "") raw.pop()
      const content = raw.map((body) => (body.startsWith("+") ? body.slice(1) : body))
      changes.push({ type: "add", path, content: content.length ? content.join("\n") + "\n" : "" })
      continue
    }

    let moveTo: string | undefined
    const move = i < lines.length ? MOVE_TO.exec(lines[i]!) : null
    if (move) {
      moveTo = cleanPath(move[1]!)
      i++
    }
    // `--- a/x` / `+++ b/x` headers copied from a unified diff add nothing here.
    if (lines[i]?.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) i += 2
    const hunks: Hunk[] = []
    let hunk: Hunk = emptyHunk()
    const flush = () => {
      if (hunk.lines.length > 0 || hunk.anchors.length > 0) hunks.push(hunk)
      hunk = emptyHunk()
    }
    // After `*** End of File` a hunk is over: blank lines there separate it from what follows.
    let afterEndOfFile = false
    while (i < lines.length && !atUpdateEnd(i)) {
      const body = lines[i]!
      const trimmed = body.trim()
      if (afterEndOfFile && trimmed === "") {
        i++
        continue
      }
      afterEndOfFile = false
      if (body.startsWith("@@")) {
        if (hunk.lines.length > 0) flush()
        const range = HUNK_RANGE.exec(body)
        if (range) {
          hunk.hint = hunkHint(range)
          const rest = body.slice(range[0].length).trim()
          if (rest) hunk.anchors.push(rest)
        } else {
          const anchor = body.replace(/^@@+\s?/, "").replace(/\s*@@+\s*$/, "")
          if (anchor.trim()) hunk.anchors.push(anchor)
        }
      } else if (trimmed === "*** End of File") {
        hunk.endOfFile = true
        flush()
        afterEndOfFile = true
      } else if (/^\s*\*\*\* /.test(body) && !body.startsWith(" ") && !body.startsWith("-") && !body.startsWith("+")) {
        throw new ToolError(`patch line ${i + 1}: unexpected "${trimmed}" in the changes to ${path}`)
      } else {
        hunk.lines.push(hunkLine(body))
      }
      i++
    }
    flush()
    const changed = hunks.filter((h) => h.lines.length > 0)
    // Reporting `M path` for a file left as it was would hide a patch that lost its hunks.
    if (changed.length === 0 && moveTo === undefined) {
      throw new ToolError(
        `patch line ${headerLine + 1}: "${line.trim()}" has no changes (expected @@ and lines starting with " ", "-" or "+")`,
      )
    }
    changes.push({ type: "update", path, moveTo, hunks: changed })
  }
  return changes
}

function emptyHunk(): Hunk {
  return { anchors: [], lines: [], endOfFile: false }
}

/** Paths as models write them: sometimes quoted or in backticks. */
export function cleanPath(raw: string): string {
  const path = raw.trim()
  const quoted = /^(["'`])(.*)\1$/.exec(path)
  return quoted ? quoted[2]! : path
}
