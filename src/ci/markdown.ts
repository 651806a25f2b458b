/**
 * A run's facts as GitHub-flavoured Markdown for a CI job summary (GitHub's $GITHUB_STEP_SUMMARY,
 * a GitLab or Buildkite annotation, a pull-request comment): the result first, then the numbers,
 * the scripts that failed and, collapsed, the files changed.
 */
import type { ChangedFile } from "./changed-files.ts"
import type { RunFacts } from "./facts.ts"

export interface SummaryInput {
  facts: RunFacts
  /** Undefined when the files were not asked for; empty when none changed. */
  changed?: ChangedFile[]
  /** What the events were read from, for the note on skipped lines. */
  source: string
}

/** Enough for any real summary, well under GitHub's 1 MiB per step. */
const SUMMARY_MAX = 20_000
const ERROR_MAX = 300
const FILES_MAX = 200
const FAILED_MAX = 20

export function renderSummary({ facts, changed, source }: SummaryInput): string {
  const out: string[] = [heading(facts), ""]
  if (facts.status === "finished" && facts.summary?.trim()) out.push(modelMarkdown(facts.summary), "")
  if (facts.status === "failed") out.push(`> ${escape(oneLine(facts.summary ?? ""))}`, "")
  if (facts.status === "incomplete") {
    out.push("> The event stream ends before the run did: clanka was stopped, or the file is cut off.", "")
  }
  out.push(...table(facts), "")
  if (facts.failedScripts.length > 0) {
    out.push(`### Scripts that failed (${facts.failedScripts.length} of ${facts.scripts})`, "")
    facts.failedScripts.slice(0, FAILED_MAX).forEach((script) => {
      const who = script.agent === null ? "" : ` of sub-agent ${code(script.agent)}`
      out.push(`- Script ${script.index}${who}: ${code(clip(oneLine(script.error), ERROR_MAX))}`)
    })
    if (facts.failedScripts.length > FAILED_MAX) out.push(`- … and ${facts.failedScripts.length - FAILED_MAX} more`)
    out.push("")
  }
  if (changed !== undefined) out.push(...files(changed), "")
  if (facts.skippedLines.length > 0) {
    const n = facts.skippedLines.length
    const where = facts.skippedLines.slice(0, 5).join(", ") + (n > 5 ? ", …" : "")
    out.push(`_${n} line${n === 1 ? "" : "s"} of ${escape(source)} ${n === 1 ? "was" : "were"} not ${n === 1 ? "an event" : "events"} and skipped (line${n === 1 ? "" : "s"} ${where})._`, "")
  }
  return out.join("\n")
}

function heading(facts: RunFacts): string {
  if (facts.status === "finished") return "## ✅ clanka finished"
  if (facts.status === "failed") return `## ❌ clanka failed (exit ${facts.exitCode})`
  return "## ⚠️ clanka did not finish"
}

function table(facts: RunFacts): string[] {
  const rows: [string, string][] = []
  if (facts.model) rows.push(["Model", code(facts.model)])
  rows.push(["Turns", count(facts.turns)])
  const tokens = [`${count(facts.inputTokens)} input`, `${count(facts.outputTokens)} output`]
  if (facts.cacheReadTokens || facts.cacheWriteTokens) {
    tokens.push(`${count(facts.cacheReadTokens)} cache read`, `${count(facts.cacheWriteTokens)} cache write`)
  }
  rows.push(["Tokens", tokens.join(" · ")])
  rows.push(["Cost", facts.costUsd === null ? "unknown (the model is not in the price table)" : `$${facts.costUsd.toFixed(4)}`])
  if (facts.durationMs !== null) rows.push(["Duration", duration(facts.durationMs)])
  const failed = facts.failedScripts.length
  rows.push(["Scripts", `${count(facts.scripts)} run${failed ? `, ${count(failed)} failed` : ""}`])
  if (facts.retries) rows.push(["Retries", count(facts.retries)])
  if (facts.sessionId) rows.push(["Session", code(facts.sessionId) + (facts.resumedFrom ? ` (resumed)` : "")])
  return ["| | |", "| --- | --- |", ...rows.map(([name, value]) => `| ${name} | ${value.replaceAll("|", "\\|")} |`)]
}

function files(changed: ChangedFile[]): string[] {
  if (changed.length === 0) return ["No files changed."]
  const n = changed.length
  const lines = ["<details>", `<summary>${n} file${n === 1 ? "" : "s"} changed</summary>`, ""]
  for (const file of changed.slice(0, FILES_MAX)) {
    lines.push(`- ${file.kind} ${file.from === undefined ? code(file.path) : `${code(file.from)} → ${code(file.path)}`}`)
  }
  if (n > FILES_MAX) lines.push(`- … and ${n - FILES_MAX} more`)
  lines.push("", "</details>")
  return lines
}

/**
 * The model's summary is Markdown and shown as such, clipped; what it leaves open that would take
 * in the rest of the report (a code fence, an HTML comment, a <details> or <pre> block) is closed.
 */
function modelMarkdown(text: string): string {
  let body = plainText(text).trim()
  if (body.length > SUMMARY_MAX) body = `${body.slice(0, SUMMARY_MAX)}\n\n_… ${count(body.length - SUMMARY_MAX)} more characters not shown._`
  let open: string | undefined
  const outsideCode: string[] = []
  for (const line of body.split("\n")) {
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (!fence) {
      if (open === undefined) outsideCode.push(line)
      continue
    }
    if (open === undefined) open = fence
    else if (fence[0] === open[0] && fence.length >= open.length && line.trim() === fence) open = undefined
  }
  if (open !== undefined) body = `${body}\n${open}`
  const closers = htmlClosers(outsideCode.join("\n").replace(/(`+)[^`][\s\S]*?\1/g, ""))
  return closers.length === 0 ? body : `${body}\n\n${closers.join("\n\n")}`
}

/**
 * HTML that runs to the end of the document when left open: a comment and the raw-text blocks
 * (CommonMark's HTML blocks end only at their end marker), and elements the browser closes only
 * there (a collapsed <details> would hide the figures and the files changed).
 */
const ENCLOSING = ["details", "pre", "textarea", "script", "style", "div"]

/** The end markers for what `html` (the summary outside code) leaves open, in order. */
function htmlClosers(html: string): string[] {
  const closers: string[] = []
  let text = html.replace(/<!--[\s\S]*?-->/g, "")
  const comment = text.indexOf("<!--")
  if (comment >= 0) {
    // What follows an unclosed comment is in it: the tags there open nothing.
    text = text.slice(0, comment)
    closers.push("-->")
  }
  for (const tag of ENCLOSING) {
    const opened = text.match(new RegExp(`<${tag}(?=[\\s>/])`, "gi"))?.length ?? 0
    const closed = text.match(new RegExp(`</${tag}\\s*>`, "gi"))?.length ?? 0
    for (let i = closed; i < opened; i++) closers.push(`</${tag}>`)
  }
  return closers
}

/** Inline code that holds any text: the fence is longer than any run of backticks inside. */
export function code(text: string): string {
  const value = plainText(text).replace(/\n/g, " ")
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length))
  const fence = "`".repeat(longest + 1)
  const pad = value.startsWith("`") || value.endsWith("`") || value === "" ? " " : ""
  return `${fence}${pad}${value}${pad}${fence}`
}

/** Text shown as it is: Markdown and HTML characters escaped. */
export function escape(text: string): string {
  return plainText(text)
    .replace(/[\\`*_[\]<>|~#&!]/g, (c) => `\\${c}`)
    .replace(/^(\s*)([-+])(\s)/, "$1\\$2$3")
    .replace(/^(\s*)(\d+)([.)])(\s)/, "$1$2\\$3$4")
}

/** No control characters (terminal escapes) in a report that may also be read in a log. */
function plainText(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, "")
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim()
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** 12345 → `12,345`, the same on every machine (no locale). */
export function count(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",")
}

/** `850 ms`, `12.5 s`, `3 min 5 s`, `1 h 2 min`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))} s`
  const s = Math.round(ms / 1000)
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
}
