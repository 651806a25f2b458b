// The text rg() returns, built the same way whichever engine searched: a heading per file, then
// `line:text` rows, a blank line between files, long lines clipped around the match, and a note
// when the output hit its cap.

export interface SearchRequest {
  pattern: string
  globs: readonly string[]
  filesOnly: boolean
  maxLines: number
}

export interface MatchedLine {
  /** 1-based line number. */
  line: number
  /** The line without its line terminator. */
  text: string
  /** UTF-16 index of the first match in `text`; only needed when the line is long. */
  column: number
}

/** Lines longer than this are clipped to a window around the first match. */
export const CLIP_AT = 300
const CLIP_BEFORE = 100

export function stripLineEnd(text: string): string {
  if (text.endsWith("\n")) text = text.slice(0, -1)
  if (text.endsWith("\r")) text = text.slice(0, -1)
  return text
}

export function clipLine(text: string, column: number): string {
  if (text.length <= CLIP_AT) return text
  const start = Math.max(0, Math.min(column - CLIP_BEFORE, text.length - CLIP_AT))
  const end = start + CLIP_AT
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""} [line clipped, ${text.length} chars]`
}

/** Collects files in search order until the cap; then says so. */
export class SearchResults {
  private readonly out: string[] = []
  private count = 0
  private capped = false

  constructor(private readonly request: SearchRequest) {}

  /** Adds one file's matching lines. Returns false once the cap is reached: stop searching. */
  add(path: string, lines: readonly MatchedLine[]): boolean {
    if (this.capped || lines.length === 0) return !this.capped
    const { filesOnly, maxLines } = this.request
    if (filesOnly) {
      if (this.count >= maxLines) {
        this.capped = true
        return false
      }
      this.out.push(path)
      this.count++
      return true
    }
    if (this.count >= maxLines) {
      this.capped = true
      return false
    }
    if (this.count > 0) this.out.push("")
    this.out.push(path)
    for (const line of lines) {
      if (this.count >= maxLines) {
        this.capped = true
        return false
      }
      this.out.push(`${line.line}:${clipLine(line.text, line.column)}`)
      this.count++
    }
    return true
  }

  render(): string {
    const { pattern, globs, filesOnly, maxLines } = this.request
    if (this.count === 0) {
      const where = globs.length ? ` in files matching ${globs.join(", ")}` : ""
      return `No matches for ${JSON.stringify(pattern)}${where}.`
    }
    let text = this.out.join("\n")
    if (this.capped) {
      const unit = filesOnly ? "files" : "lines"
      text += `\n\n[output capped at ${maxLines} ${unit}; narrow the pattern or glob, or raise maxLines]`
    }
    return text
  }
}

/** The one-line error for a pattern the regex engine rejects. */
export function invalidRegexMessage(pattern: string, detail: string): string {
  return `invalid regex ${JSON.stringify(pattern)}: ${detail}`
}
