import type { Colors } from "picocolors/types"
import type { AgentEvent, ContentPart, RunUsage } from "../agent/events.ts"
import type { Sink } from "./sink.ts"
import { visible } from "./visible.ts"
import { seconds } from "../util/duration.ts"
import { LiveTail } from "./live-tail.ts"

interface PrettyOptions {
  color: boolean
  /** Print the final summary (pretty) or leave it to the caller (text mode prints it on stdout). */
  summary?: boolean
  /** Lines of script output shown before the rest is counted (default 20). */
  maxOutputLines?: number
  /** Lines of a streaming script shown before the rest is counted (default 40). */
  maxScriptLines?: number
  /** Characters of one script or output line shown before it is clipped with "…" (default 300). */
  maxScriptColumns?: number
  /**
   * A terminal: a running script's latest output and elapsed time are shown live at the bottom
   * and replaced by its final output. Otherwise its lines are printed as they come (the same
   * lines the final output would show, earlier).
   */
  live?: boolean
  /** The clock of the live view (tests). */
  now?: () => number
}

/** Lines of a running script already printed (not live): its ScriptOutput prints the rest. */
interface StreamedOutput {
  printed: string[]
  /** Text after the last newline, printed once it ends or the script does. */
  partial: string
}

/** How much of the script being streamed has been shown: the terminal gets a bounded preview. */
interface ScriptView {
  /** Lines ended so far. */
  lines: number
  /** Characters shown of the current line. */
  column: number
  /** The current line has text (shown or not). */
  hasText: boolean
  /** The current line was cut with "…". */
  clipped: boolean
}

/**
 * Human-readable rendering of the events: reasoning as text, scripts in a gutter, output truncated
 * with a line count, usage and cost after each response. Sub-agent lines carry their id.
 * Everything that came from the model, a script or the repository passes through `visible` before
 * picocolors paints it: control characters are shown, never obeyed by the terminal.
 */
export function prettyFormatter(out: Sink & { columns?: number }, options: PrettyOptions): (event: AgentEvent) => void {
  const c = colors(options.color)
  const maxLines = options.maxOutputLines ?? 20
  const maxScriptLines = options.maxScriptLines ?? 40
  const maxScriptColumns = options.maxScriptColumns ?? 300
  /** Per agent, though two agents' Script blocks never interleave (the output lock). */
  const scripts = new Map<string, ScriptView>()
  let atLineStart = true
  /** The top-level agent's latest text block: a summary that repeats it is not printed twice. */
  let lastText = ""
  /** Per agent, scripts streamed whose ScriptOutput has not come yet (they run one after another). */
  const pending = new Map<string, number>()
  const streamed = new Map<string, StreamedOutput>()
  const live = options.live ? new LiveTail({ out, dim: c.dim, ...(options.now ? { now: options.now } : {}) }) : undefined

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

  /** Streams script text into the gutter, up to maxScriptLines lines of maxScriptColumns. */
  const scriptDelta = (delta: string, tag: string, prefix: string) => {
    let view = scripts.get(tag)
    if (!view) scripts.set(tag, (view = { lines: 0, column: 0, hasText: false, clipped: false }))
    let result = ""
    for (const [i, segment] of visible(delta).split("\n").entries()) {
      if (i > 0) {
        if (view.lines < maxScriptLines) result += "\n"
        view.lines++
        view.column = 0
        view.hasText = view.clipped = false
      }
      if (segment === "") continue
      view.hasText = true
      if (view.lines >= maxScriptLines || view.clipped) continue
      if (view.column === 0) result += prefix
      const room = maxScriptColumns - view.column
      if (segment.length <= room) {
        result += c.cyan(segment)
        view.column += segment.length
      } else {
        result += c.cyan(clip(segment, room)) + c.dim("…")
        view.clipped = true
      }
    }
    if (result) write(result)
  }
  const scriptEnd = (tag: string, lead: string) => {
    newline()
    const view = scripts.get(tag)
    scripts.delete(tag)
    const hidden = view ? view.lines + (view.hasText ? 1 : 0) - maxScriptLines : 0
    if (hidden > 0) write(`${lead}${c.dim(`│ … ${hidden} more line${hidden === 1 ? "" : "s"}`)}\n`)
  }

  /** Line mode: complete output lines as they come, up to the lines the final output shows. */
  const outputDelta = (text: string, tag: string, lead: string) => {
    let state = streamed.get(tag)
    if (!state) streamed.set(tag, (state = { printed: [], partial: "" }))
    const lines = (state.partial + text).split("\n")
    state.partial = lines.pop()!
    for (const raw of lines) {
      if (state.printed.length >= maxLines) continue
      const line = visible(raw.replace(/\r$/, ""))
      newline()
      write(`${lead}${c.dim("  ")}${clipLine(line)}\n`)
      state.printed.push(line)
    }
  }
  const clipLine = (line: string) => (line.length > maxScriptColumns ? clip(line, maxScriptColumns) + c.dim("…") : line)

  const part = (event: ContentPart, tag: string) => {
    const lead = tag ? c.magenta(`${tag} `) : ""
    switch (event._tag) {
      case "ReasoningStart":
        newline()
        return
      case "ScriptEnd":
        scriptEnd(tag, lead)
        pending.set(tag, (pending.get(tag) ?? 0) + 1)
        return
      case "ReasoningDelta":
        stream(event.delta, lead, (s) => s)
        return
      case "ReasoningEnd":
        newline()
        return
      case "ScriptStart":
        newline()
        scripts.delete(tag)
        write(`${lead}${c.cyan("▸ execute")}\n`)
        return
      case "ScriptDelta":
        scriptDelta(event.delta, tag, `${lead}${c.dim("│ ")}`)
        return
      case "ScriptOutputDelta":
        if (live) {
          // A script that printed before its turn's Usage (not expected) still gets its region.
          if (!live.has(tag)) live.start(tag, lead)
          live.push(tag, event.text)
        } else outputDelta(event.text, tag, lead)
        return
      case "ScriptOutput": {
        newline()
        const left = (pending.get(tag) ?? 1) - 1
        if (left > 0) pending.set(tag, left)
        else pending.delete(tag)
        live?.stop(tag)
        const lines = visible(event.output).replace(/\n$/, "").split("\n")
        // The lines printed while it ran are not printed again (unless the final text differs).
        const printed = streamed.get(tag)?.printed ?? []
        streamed.delete(tag)
        const skip = printed.every((line, i) => lines[i] === line) ? printed.length : 0
        const shown = lines.slice(skip, Math.max(skip, maxLines))
        for (const line of shown) write(`${lead}${c.dim("  ")}${clipLine(line)}\n`)
        const more = lines.length - skip - shown.length
        if (more > 0) write(`${lead}${c.dim(`  … ${more} more line${more === 1 ? "" : "s"}`)}\n`)
        // The turn's next script starts now.
        if (left > 0) live?.start(tag, lead)
        return
      }
      case "Usage":
        newline()
        write(`${lead}${c.dim(formatUsage(event, event.durationMs))}\n`)
        // The response is complete: its first script runs now.
        if ((pending.get(tag) ?? 0) > 0) live?.start(tag, lead)
        return
      case "ErrorRetry":
        newline()
        write(`${lead}${c.yellow(`⚠ ${visible(event.error.message)}; retrying`)}\n`)
        return
      case "Hook":
        // A hook that did its work quietly is not shown; one that failed or blocked is.
        if (event.warning === undefined && !event.blocked) return
        newline()
        write(`${lead}${c.yellow(`⚠ ${visible(event.warning ?? `the ${event.name} hook ${JSON.stringify(event.command)} blocked the script`)}`)}\n`)
        return
      case "Compaction":
        newline()
        write(`${lead}${c.dim(`⟲ history compacted: ${tokens(event.beforeTokens)} → ${tokens(event.afterTokens)} tokens (${elapsed(event.durationMs)})`)}\n`)
        return
      case "StructuredOutput":
        newline()
        write(`${lead}${visible(JSON.stringify(event.value, null, 2))}\n`)
        return
    }
  }

  const print = (event: AgentEvent) => {
    switch (event._tag) {
      case "AgentStart":
        write(c.dim(visible(`● ${event.provider}/${event.model} in ${event.directory}${sandboxNote(event.sandbox)}${sessionNote(event)}`)) + "\n")
        return
      case "SubagentStart":
        newline()
        write(c.magenta(visible(`⤷ sub-agent ${event.id} (${event.provider}/${event.model}${event.host === undefined ? "" : ` on ${event.host}`}): ${firstLine(event.prompt)}`)) + "\n")
        return
      case "SubagentPart":
        part(event.part, `[${visible(event.id)}]`)
        return
      case "SubagentComplete":
        newline()
        write(c.magenta(visible(`⤶ sub-agent ${event.id} done: ${firstLine(event.summary)}`)) + "\n")
        return
      case "AgentFinished":
        live?.dispose()
        newline()
        write(c.green(`✓ done in ${elapsed(event.durationMs)}, ${event.turns} turn${event.turns === 1 ? "" : "s"}${cost(event.usage)}`) + "\n")
        if (options.summary !== false && event.summary && event.summary.trim() !== lastText.trim()) {
          write(visible(event.summary).replace(/\n?$/, "\n"))
        }
        return
      case "AgentError":
        // The CLI prints the error line on stderr.
        live?.dispose()
        newline()
        return
      default:
        if (event._tag === "ReasoningStart") lastText = ""
        if (event._tag === "ReasoningDelta") lastText += event.delta
        part(event, "")
    }
  }

  if (!live) return print
  return (event) => {
    // New output of a script shown live only redraws the region; anything else is printed above it.
    const inner = event._tag === "SubagentPart" ? event.part : event
    const tag = event._tag === "SubagentPart" ? `[${visible(event.id)}]` : ""
    if (inner._tag === "ScriptOutputDelta" && live.has(tag)) return live.push(tag, inner.text)
    live.erase()
    print(event)
    live.settle(atLineStart)
  }
}

/** The first `length` UTF-16 units of `text`, not splitting a surrogate pair. */
function clip(text: string, length: number): string {
  const code = text.charCodeAt(length - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length)
}

/**
 * ` (sandbox: workspace-write, no network)`; nothing for an event without it. Landlock is named:
 * it differs from bubblewrap where a user notices (no loopback without --network, /tmp closed).
 */
function sandboxNote(sandbox: { mode: string; network: boolean; backend?: string } | undefined): string {
  if (!sandbox) return ""
  if (sandbox.mode === "off") return " (no sandbox)"
  return ` (sandbox: ${sandbox.mode}${sandbox.network ? ", network" : ", no network"}${sandbox.backend === "landlock" ? ", Landlock" : ""})`
}

/**
 * ` · goes on from session 1a2b3c4d` after --resume or --continue, ` · forked from session …` after
 * --fork: which saved session a run took up is otherwise shown nowhere but in --json.
 */
function sessionNote(event: { sessionId?: string; resumedFrom?: string | null }): string {
  if (!event.resumedFrom) return ""
  const short = event.resumedFrom.slice(0, 8)
  return event.resumedFrom === event.sessionId ? ` · goes on from session ${short}` : ` · forked from session ${short}`
}

function firstLine(text: string): string {
  const line = text.trim().split(/\r?\n/)[0] ?? ""
  return line.length > 100 ? line.slice(0, 99) + "…" : line
}

/** Elapsed time, short: `850 ms`, `2.5 s`. */
function elapsed(ms: number): string {
  return ms < 1000 ? `${ms} ms` : seconds(ms, 1)
}

function tokens(n: number): string {
  return n < 1000 ? String(n) : n < 1_000_000 ? `${(n / 1000).toFixed(1)}k` : `${(n / 1_000_000).toFixed(2)}M`
}

function cost(usage: RunUsage): string {
  return usage.costUsd === null ? "" : `, $${usage.costUsd.toFixed(4)}`
}

/** `12.3k in · 456 out · 10.0k cache read · context 23% · $0.0123 · 1.2 s` */
function formatUsage(usage: RunUsage, durationMs: number): string {
  const items = [`${tokens(usage.inputTokens)} in`, `${tokens(usage.outputTokens)} out`]
  if (usage.cacheReadTokens) items.push(`${tokens(usage.cacheReadTokens)} cache read`)
  if (usage.cacheWriteTokens) items.push(`${tokens(usage.cacheWriteTokens)} cache write`)
  if (usage.contextWindow) items.push(`context ${Math.round((usage.contextTokens / usage.contextWindow) * 100)}%`)
  if (usage.costUsd !== null) items.push(`$${usage.costUsd.toFixed(4)}`)
  items.push(elapsed(durationMs))
  return items.join(" · ")
}

type Paint = Pick<Colors, "cyan" | "dim" | "green" | "magenta" | "yellow">

/**
 * picocolors, loaded only to paint: its module reads `process.stdout.isTTY` as it loads, which
 * builds Node's stdout stream (~5 ms of CPU, ~10 ms on a terminal) on every run otherwise,
 * colours or not (run writes without that stream: cli/stdio.ts).
 */
function colors(enabled: boolean): Paint {
  if (enabled) return (require("picocolors") as typeof import("picocolors")).createColors(true)
  const plain = (text: string | number | null | undefined) => String(text)
  return { cyan: plain, dim: plain, green: plain, magenta: plain, yellow: plain }
}
