// The search used where the `rg` binary is missing (a fresh remote host). Same file selection,
// same order, same output as the ripgrep engine; JavaScript regular expressions instead of
// Rust's, which agree on everything a search pattern usually holds.
import { closeSync, fstatSync, openSync, readSync } from "node:fs"
import { ToolError } from "../../errors.ts"
import { invalidRegexMessage, SearchResults, stripLineEnd, type MatchedLine, type SearchRequest } from "./results.ts"
import { walkFiles } from "./walk.ts"
import { errorMessage } from "../../util/error-message.ts"

/** Files larger than this are skipped, as with `rg --max-filesize 1M`. */
export const MAX_FILE_BYTES = 1024 * 1024

interface Matcher {
  /** Global + multiline: finds candidate positions in the whole file. */
  scan: RegExp
  /** Tested against one line, to confirm and locate the match. */
  line: RegExp
  /** Set when the pattern is plain text: files without these bytes are skipped undecoded. */
  literal?: Buffer
}

export function compileMatcher(pattern: string): Matcher {
  let source = pattern
  let flags = ""
  // Rust's leading inline flags, which JavaScript spells as flags.
  const inline = /^\(\?([ims]+)\)/.exec(source)
  if (inline) {
    source = source.slice(inline[0].length)
    for (const flag of inline[1]!) if (flag === "i" || flag === "s") flags += flag
  }
  let line: RegExp
  try {
    line = new RegExp(source, flags + "u")
    flags += "u"
  } catch {
    try {
      // Rust accepts escapes (`\-`, `\#`) that JavaScript only allows outside unicode mode.
      line = new RegExp(source, flags)
    } catch (error) {
      const message = errorMessage(error)
      throw new ToolError(invalidRegexMessage(pattern, message.replace(/^Invalid regular expression: /, "")))
    }
  }
  const literal = !flags.includes("i") && /^[^\\^$.|?*+()[\]{}]*$/.test(source) ? Buffer.from(source) : undefined
  return { scan: new RegExp(source, flags + "gm"), line, literal }
}

/** Matching lines of one file's text, in order. */
export function matchLines(text: string, matcher: Matcher): MatchedLine[] {
  const out: MatchedLine[] = []
  const { scan, line } = matcher
  scan.lastIndex = 0
  let lineNo = 1
  let counted = 0 // text before this offset has had its newlines counted
  for (;;) {
    const found = scan.exec(text)
    if (!found) break
    const pos = found.index
    // A match at the very end, after the last newline, is not on a line.
    if (pos >= text.length && (text.length === 0 || text.endsWith("\n"))) break
    const start = text.lastIndexOf("\n", pos - 1) + 1
    for (let i = text.indexOf("\n", counted); i !== -1 && i < start; i = text.indexOf("\n", i + 1)) lineNo++
    counted = start
    let end = text.indexOf("\n", pos)
    if (end === -1) end = text.length
    const lineText = text.slice(start, end)
    const confirmed = line.exec(lineText)
    if (confirmed) out.push({ line: lineNo, text: stripLineEnd(lineText), column: confirmed.index })
    if (end >= text.length) break
    scan.lastIndex = end + 1
  }
  return out
}

const utf16le = new TextDecoder("utf-16le")
const utf16be = new TextDecoder("utf-16be")

/** A file's text, or undefined when it is binary (holds a NUL byte after any transcoding). */
function fileText(bytes: Buffer, literal: Buffer | undefined): string | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return noNul(utf16le.decode(bytes.subarray(2)))
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return noNul(utf16be.decode(bytes.subarray(2)))
  if (bytes.indexOf(0) !== -1) return undefined
  if (literal && bytes.indexOf(literal) === -1) return ""
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  return bytes.toString("utf8", bom)
}

function noNul(text: string): string | undefined {
  return text.includes("\0") ? undefined : text
}

let scratch = Buffer.allocUnsafe(64 * 1024)

/** Reads a file of at most MAX_FILE_BYTES into a reused buffer; undefined when larger or unreadable. */
function readSmallFile(absPath: string): Buffer | undefined {
  let fd: number
  try {
    fd = openSync(absPath, "r")
  } catch {
    return undefined
  }
  try {
    const size = fstatSync(fd).size
    if (size > MAX_FILE_BYTES) return undefined
    if (scratch.length < size + 1) scratch = Buffer.allocUnsafe(Math.max(size + 1, scratch.length * 2))
    let length = 0
    for (;;) {
      const n = readSync(fd, scratch, length, scratch.length - length, null)
      if (n === 0) break
      length += n
      if (length > MAX_FILE_BYTES) return undefined // grew while we read
      if (length === scratch.length) scratch = Buffer.concat([scratch, Buffer.allocUnsafe(scratch.length)])
    }
    return scratch.subarray(0, length)
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

export async function builtinSearch(request: SearchRequest, directory: string, signal?: AbortSignal): Promise<string> {
  const matcher = compileMatcher(request.pattern)
  const results = new SearchResults(request)
  await walkFiles({ root: directory, globs: request.globs, signal }, (relPath, absPath) => {
    const bytes = readSmallFile(absPath)
    if (!bytes) return false
    const text = fileText(bytes, matcher.literal)
    if (!text) return false
    matcher.scan.lastIndex = 0
    if (!matcher.scan.test(text)) return false
    const lines = matchLines(text, matcher)
    return !results.add(relPath, lines)
  })
  return results.render()
}
