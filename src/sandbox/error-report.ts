// How a script's failures read to the model: the line (and, for a syntax error, the column) of the
// script as it wrote it, never those of the hidden wrapper that makes it an async function body,
// followed by that line of source.
import { nodeUtil } from "./node-util.ts"

export const FILENAME = "script.js"
const HEAD = "(async () => {"
const TAIL = "\n})"

/**
 * The script as the body of an async function; the wrapper adds no line before it. Evaluating it
 * only makes the function: the script's realm calls it.
 */
export function wrap(script: string): string {
  return HEAD + script + TAIL
}

/** What the model wrote and where the compiled script starts in it (after a stripped fence). */
export interface Source {
  /** The script as the model wrote it. */
  original: string
  /** Line of `original` on which the compiled script's first line is. */
  firstLine: number
}

export interface Report {
  /** One line: the error and where. */
  summary: string
  /** The summary, then the line of source (and a caret under the column for a syntax error). */
  report: string
}

/**
 * A SyntaxError from compiling `wrap(script)`. JavaScriptCore puts the place in the stack:
 * `script.js:LINE`, that line of the wrapped source, then a caret under the column.
 */
export function syntaxErrorReport(error: unknown, script: string, source: Source): Report {
  const e = error as Error
  const message = String(e?.message ?? error)
  const place = /script\.js:(\d+)\n[^\n]*\n([^\n^]*)\^/.exec(String(e?.stack ?? ""))
  if (!place) return { summary: `SyntaxError: ${message}`, report: `SyntaxError: ${message}\n` }
  const { offset, message: text } = locate(script, message, wrappedOffset(wrap(script), Number(place[1]), place[2]!.length))
  const { line, column } = lineAndColumn(script, offset)
  const shown = line + source.firstLine - 1
  const summary = `SyntaxError: ${text} (line ${shown}, column ${column})`
  const lineText = source.original.split("\n")[shown - 1] ?? ""
  return { summary, report: `${summary}\n${excerpt(shown, lineText, column)}` }
}

/** Offset in the wrapped source of a 0-based column on one of its lines. */
function wrappedOffset(wrapped: string, line: number, column: number): number {
  let offset = 0
  for (let i = 1; i < line; i++) {
    const next = wrapped.indexOf("\n", offset)
    if (next === -1) break
    offset = next + 1
  }
  return offset + column
}

/**
 * Where the error is in the script and what to call it, from where JavaScriptCore points in the
 * wrapped source: at the unexpected token or just past it. A token of the wrapper's closing
 * `})()` means the script ended while something was still open.
 */
function locate(script: string, message: string, at: number): { offset: number; message: string } {
  const wrapped = wrap(script)
  const end = script.trimEnd().length
  const token = /^Unexpected (?:token|identifier|keyword) '([^']+)'/.exec(message)?.[1]
  let start = at
  if (token !== undefined && !wrapped.startsWith(token, at)) {
    const before = wrapped.slice(0, at).trimEnd()
    const from = before.length - token.length
    const wholeToken = !/[\w$]/.test(token[0]!) || !/[\w$]/.test(before[from - 1] ?? "")
    if (before.endsWith(token) && wholeToken) start = from
  }
  const offset = Math.max(start - HEAD.length, 0)
  if (offset >= script.length) {
    return { offset: end, message: message.replace(/^Unexpected token '[^']+'/, "Unexpected end of script") }
  }
  if (message === "Unexpected EOF" && "`'\"".includes(script[offset]!)) {
    return { offset, message: script[offset] === "`" ? "Unterminated template literal" : "Unterminated string literal" }
  }
  return { offset, message }
}

/** 1-based line and column of an offset in the script. */
function lineAndColumn(script: string, offset: number): { line: number; column: number } {
  const before = script.slice(0, offset)
  const lineStart = before.lastIndexOf("\n") + 1
  return { line: before.split("\n").length, column: offset - lineStart + 1 }
}

const EXCERPT_CHARS = 120

/** A long line cut to EXCERPT_CHARS around a 0-based column, and where that column now is. */
function around(lineText: string, column: number): { text: string; at: number } {
  if (lineText.length <= EXCERPT_CHARS) return { text: lineText, at: column }
  const start = Math.max(0, Math.min(column - EXCERPT_CHARS / 2, lineText.length - EXCERPT_CHARS))
  const end = start + EXCERPT_CHARS
  return { text: `${start > 0 ? "…" : ""}${lineText.slice(start, end)}${end < lineText.length ? "…" : ""}`, at: column - start + (start > 0 ? 1 : 0) }
}

/** `  N | source` with a caret under the column; a long line is cut to the part around it. */
function excerpt(line: number, lineText: string, column: number): string {
  const { text, at } = around(lineText, column - 1)
  const indent = text.length - text.trimStart().length
  const shown = text.slice(indent).trimEnd()
  // Tabs stay tabs under the line so the caret lines up however they are displayed.
  const pad = text.slice(indent, Math.max(at, indent)).replace(/[^\t]/g, " ")
  const gutter = `  ${line} | `
  return `${gutter}${shown}\n${" ".repeat(gutter.length)}${pad}^\n`
}

/**
 * A thrown value that is not an error, as the script's realm showed it. `prefix` says how it
 * escaped (`Uncaught (in promise) `); a value the script's body threw reads `Uncaught 42`, as Node
 * shows it.
 */
export function thrownValueReport(shown: string, prefix: string): Report {
  const text = `${prefix || "Uncaught "}${shown}`
  return { summary: text.split("\n")[0]!, report: text + "\n" }
}

/** An error the running script threw: the first stack frame inside the script gives its line. */
export function runtimeErrorReport(error: unknown, script: string, source: Source): Report {
  // Errors come from the script's realm: `instanceof Error` would be false for them.
  if (typeof error !== "object" || error === null || !("message" in error)) {
    const text = `Uncaught ${nodeUtil().formatWithOptions({ colors: false }, error)}`
    return { summary: text.split("\n")[0]!, report: text + "\n" }
  }
  const e = error as Error
  const head = `${e.name || "Error"}: ${e.message}`
  const lines = script.split("\n").length
  // The wrapper's own frame (the call after the script's last line) says nothing to the model.
  const frames = [...String(e.stack ?? "").matchAll(/script\.js:(\d+)(?::(\d+))?/g)].map((match) => ({ line: Number(match[1]), column: Number(match[2] ?? 0) }))
  const frame = frames.find(({ line }) => line <= lines)
  if (frame === undefined) return { summary: head.split("\n")[0]!, report: `${head}\n` }
  const line = frame.line + source.firstLine - 1
  // A long line (a script written on one line) is cut to the part around the column.
  const column = Math.max(frame.column - 1 - (frame.line === 1 ? HEAD.length : 0), 0)
  const text = around(source.original.split("\n")[line - 1] ?? "", column).text.trim()
  return { summary: `${head.split("\n")[0]} (line ${line})`, report: `${head} (line ${line})${text ? `\n  ${line} | ${text}` : ""}\n` }
}
