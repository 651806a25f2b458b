/** One line of a hunk: kept (" "), removed ("-") or added ("+"), without its prefix. */
export interface HunkLine {
  op: " " | "-" | "+"
  text: string
}

/** A change to one region of a file, found by its old lines rather than by line numbers. */
export interface Hunk {
  /** `@@ text` lines of the Begin Patch format: lines to find, in order, before the hunk. */
  anchors: string[]
  lines: HunkLine[]
  /** 0-based index where the old lines started according to a `@@ -a,b` header: a hint only. */
  hint?: number
  /** `*** End of File`: the old lines are at the end of the file. */
  endOfFile: boolean
  /** `\ No newline at end of file` after the last old / new line. */
  oldNoNewline?: boolean
  newNoNewline?: boolean
}

export type FileChange =
  | { type: "add"; path: string; content: string; mode?: number }
  | { type: "delete"; path: string }
  | {
      type: "update"
      path: string
      /** New path when the file is moved (`*** Move to:`, git rename). */
      moveTo?: string
      /** A plain unified diff naming two different files: the other name, used if `path` is missing. */
      fallbackPath?: string
      hunks: Hunk[]
      /** New permission bits from a git mode change. */
      mode?: number
    }

export const oldLines = (hunk: Hunk): string[] => hunk.lines.filter((l) => l.op !== "+").map((l) => l.text)
export const newLines = (hunk: Hunk): string[] => hunk.lines.filter((l) => l.op !== "-").map((l) => l.text)
