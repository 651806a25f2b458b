import { createColors } from "picocolors"
import type { AgentEvent, ContentPart, RunUsage } from "../agent/events.ts"
import type { Sink } from "./sink.ts"
import { visible } from "./visible.ts"

export interface PrettyOptions {
  color: boolean
  /** Print the final summary (pretty) or leave it to the caller (text mode prints it on stdout). */
  summary?: boolean
  /** Lines of script output shown before the rest is counted (default 20). */
  maxOutputLines?: number
}

/**
 * Human-readable rendering of the events: reasoning as text, scripts in a gutter, output truncated
 * with a line count, usage and cost after each response. Sub-agent lines carry their id.
 * Everything that came from the model, a script or the repository passes through `visible` before
 * picocolors paints it: control characters are shown, never obeyed by the terminal.
 */
export function prettyFormatter(out: Sink, options: PrettyOptions): (event: AgentEvent) => void {
  const c = createColors(options.color)
  const maxLines = options.maxOutputLines ?? 20
  let atLineStart = true
  /** The top-level agent's latest text block: a summary that repeats it is not printed twice. */
  let lastText = ""

  const write = (text: string) => {
    if (text) {
      out.write(text)
      atLineStart = text.endsWith("\n")
    }
  }
  const newline = () => {
    if (!atLineStart) write("\n")
  }
  /** Writes streamed text, prefixing each new line. */
  const stream = (raw: string, prefix: string, paint: (s: string) => string) => {
    const text = visible(raw)
    let result = ""
    for (const [i, line] of text.split("\n").entries()) {
      if (i > 0) result += "\n"
      if (line === "") continue
      if (atLineStart || i > 0) result += prefix
      result += paint(line)
      atLineStart = false
    }
    if (result) out.write(result)
    atLineStart = text.endsWith("\n") || (atLineStart && text === "")
  }

  const part = (event: ContentPart, tag: string) => {
    const lead = tag ? c.magenta(`${tag} `) : ""
    switch (event._tag) {
      case "ReasoningStart":
      case "ScriptEnd":
        newline()
        return
      case "ReasoningDelta":
        stream(event.delta, lead, (s) => s)
        return
      case "ReasoningEnd":
        newline()
        return
      case "ScriptStart":
        newline()
        write(`${lead}${c.cyan("▸ execute")}\n`)
        return
      case "ScriptDelta":
        stream(event.delta, `${lead}${c.dim("│ ")}`, c.cyan)
        return
      case "ScriptOutput": {
        newline()
        const lines = visible(event.output).replace(/\n$/, "").split("\n")
        const shown = lines.length > maxLines ? lines.slice(0, maxLines) : lines
        for (const line of shown) write(`${lead}${c.dim("  ")}${line}\n`)
        if (lines.length > shown.length) write(`${lead}${c.dim(`  … ${lines.length - shown.length} more lines`)}\n`)
        return
      }
      case "Usage":
        newline()
        write(`${lead}${c.dim(formatUsage(event, event.durationMs))}\n`)
        return
      case "ErrorRetry":
        newline()
        write(`${lead}${c.yellow(`⚠ ${visible(event.error.message)}; retrying`)}\n`)
        return
      case "StructuredOutput":
        newline()
        write(`${lead}${visible(JSON.stringify(event.value, null, 2))}\n`)
        return
    }
  }

  return (event) => {
    switch (event._tag) {
      case "AgentStart":
        write(c.dim(visible(`● ${event.provider}/${event.model} in ${event.directory}`)) + "\n")
        return
      case "SubagentStart":
        newline()
        write(c.magenta(visible(`⤷ sub-agent ${event.id} (${event.provider}/${event.model}): ${firstLine(event.prompt)}`)) + "\n")
        return
      case "SubagentPart":
        part(event.part, `[${visible(event.id)}]`)
        return
      case "SubagentComplete":
        newline()
        write(c.magenta(visible(`⤶ sub-agent ${event.id} done: ${firstLine(event.summary)}`)) + "\n")
        return
      case "AgentFinished":
        newline()
        write(c.green(`✓ done in ${seconds(event.durationMs)}, ${event.turns} turn${event.turns === 1 ? "" : "s"}${cost(event.usage)}`) + "\n")
        if (options.summary !== false && event.summary && event.summary.trim() !== lastText.trim()) {
          write(visible(event.summary).replace(/\n?$/, "\n"))
        }
        return
      case "AgentError":
        // The CLI prints the error line on stderr.
        newline()
        return
      default:
        if (event._tag === "ReasoningStart") lastText = ""
        if (event._tag === "ReasoningDelta") lastText += event.delta
        part(event, "")
    }
  }
}

function firstLine(text: string): string {
  const line = text.trim().split(/\r?\n/)[0] ?? ""
  return line.length > 100 ? line.slice(0, 99) + "…" : line
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${(ms / 1000).toFixed(1)}s`
}

export function tokens(n: number): string {
  return n < 1000 ? String(n) : n < 1_000_000 ? `${(n / 1000).toFixed(1)}k` : `${(n / 1_000_000).toFixed(2)}M`
}

function cost(usage: RunUsage): string {
  return usage.costUsd === null ? "" : `, $${usage.costUsd.toFixed(4)}`
}

/** `12.3k in · 456 out · 10.0k cache read · context 23% · $0.0123 · 1.2s` */
export function formatUsage(usage: RunUsage, durationMs: number): string {
  const items = [`${tokens(usage.inputTokens)} in`, `${tokens(usage.outputTokens)} out`]
  if (usage.cacheReadTokens) items.push(`${tokens(usage.cacheReadTokens)} cache read`)
  if (usage.cacheWriteTokens) items.push(`${tokens(usage.cacheWriteTokens)} cache write`)
  if (usage.contextWindow) items.push(`context ${Math.round((usage.contextTokens / usage.contextWindow) * 100)}%`)
  if (usage.costUsd !== null) items.push(`$${usage.costUsd.toFixed(4)}`)
  items.push(seconds(durationMs))
  return items.join(" · ")
}
