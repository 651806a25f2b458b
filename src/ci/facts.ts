/**
 * What a job summary says about a run, gathered from its saved `--json` event stream one line at a
 * time (a long run's stream is never held whole). A line that is not a JSON event (a truncated
 * last line, a log line mixed in) is counted and skipped; events of a newer clanka that this one
 * does not know are ignored.
 */

export type RunStatus = "finished" | "failed" | "incomplete"

export interface FailedScript {
  /** 1-based position among the scripts of its agent. */
  index: number
  /** The sub-agent that ran it, or null for the top-level agent. */
  agent: string | null
  /** The script's error, one line, as the model saw it. */
  error: string
}

export interface RunFacts {
  /** `incomplete`: the stream ends before AgentFinished or AgentError (killed, or cut off). */
  status: RunStatus
  /** 0 when finished, the AgentError's exit code when failed, null when incomplete. */
  exitCode: number | null
  /** The run's summary when finished, its error message when failed. */
  summary: string | null
  sessionId: string | null
  resumedFrom: string | null
  /** `provider/model`. */
  model: string | null
  /** Model turns of the top-level agent. */
  turns: number
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  costUsd: number | null
  /** The run's wall time (AgentFinished), or null when it did not finish. */
  durationMs: number | null
  /** Scripts that ran, sub-agents' included (those cut off before running are not counted). */
  scripts: number
  failedScripts: FailedScript[]
  /** Retried errors (429, 5xx, timeouts). */
  retries: number
  /** 1-based numbers of the lines that were not events. */
  skippedLines: number[]
}

/** The prefix loop.ts puts before a failed script's error, on the last line of its output. */
const FAILED = "The script failed: "
/** Outputs of scripts that never ran (the response was cut off, the run ended first). */
const NOT_RUN = /^\(not run: [^\n]*\)$/

type Event = { _tag: string; [key: string]: unknown }

export class FactsCollector {
  #facts: RunFacts = {
    status: "incomplete",
    exitCode: null,
    summary: null,
    sessionId: null,
    resumedFrom: null,
    model: null,
    turns: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: null,
    durationMs: null,
    scripts: 0,
    failedScripts: [],
    retries: 0,
    skippedLines: [],
  }
  #lines = 0
  #events = 0
  /** Scripts seen per agent ("" = top level), to number the failed ones. */
  #scriptCounts = new Map<string, number>()

  /** Takes the next line of the stream. */
  line(text: string): void {
    this.#lines++
    if (text.trim() === "") return
    let event: unknown
    try {
      event = JSON.parse(text)
    } catch {
      this.#facts.skippedLines.push(this.#lines)
      return
    }
    if (!isEvent(event)) {
      this.#facts.skippedLines.push(this.#lines)
      return
    }
    this.#events++
    this.#event(event)
  }

  /** How many lines were events. */
  get events(): number {
    return this.#events
  }

  facts(): RunFacts {
    return { ...this.#facts, failedScripts: [...this.#facts.failedScripts], skippedLines: [...this.#facts.skippedLines] }
  }

  #event(event: Event): void {
    const facts = this.#facts
    switch (event._tag) {
      case "AgentStart":
        facts.sessionId = str(event.sessionId) ?? facts.sessionId
        facts.resumedFrom = str(event.resumedFrom) ?? facts.resumedFrom
        if (str(event.provider) && str(event.model)) facts.model = `${event.provider}/${event.model}`
        break
      case "Usage":
        facts.turns++
        this.#usage(event)
        break
      case "ErrorRetry":
        facts.retries++
        break
      case "ScriptOutput":
        this.#scriptOutput("", event.output)
        break
      case "SubagentPart": {
        const part = event.part as Event | undefined
        if (isEvent(part) && part._tag === "ScriptOutput") this.#scriptOutput(str(event.id) ?? "?", part.output)
        break
      }
      case "AgentFinished":
        facts.status = "finished"
        facts.exitCode = 0
        facts.summary = str(event.summary) ?? ""
        facts.durationMs = num(event.durationMs)
        if (num(event.turns) !== null) facts.turns = num(event.turns)!
        if (event.usage && typeof event.usage === "object") this.#usage(event.usage as Record<string, unknown>)
        break
      case "AgentError":
        facts.status = "failed"
        facts.exitCode = num(event.exitCode) ?? 1
        facts.summary = str(event.message) ?? ""
        break
    }
  }

  /** Usage figures are cumulative for the run: the latest ones are the run's. */
  #usage(usage: Record<string, unknown>): void {
    const facts = this.#facts
    facts.inputTokens = num(usage.inputTokens) ?? facts.inputTokens
    facts.outputTokens = num(usage.outputTokens) ?? facts.outputTokens
    facts.cacheReadTokens = num(usage.cacheReadTokens) ?? facts.cacheReadTokens
    facts.cacheWriteTokens = num(usage.cacheWriteTokens) ?? facts.cacheWriteTokens
    if ("costUsd" in usage) facts.costUsd = num(usage.costUsd)
  }

  #scriptOutput(agent: string, output: unknown): void {
    const text = typeof output === "string" ? output.trimEnd() : ""
    if (NOT_RUN.test(text)) return
    const index = (this.#scriptCounts.get(agent) ?? 0) + 1
    this.#scriptCounts.set(agent, index)
    this.#facts.scripts++
    const last = text.slice(text.lastIndexOf("\n") + 1)
    if (last.startsWith(FAILED)) this.#facts.failedScripts.push({ index, agent: agent || null, error: last.slice(FAILED.length) })
  }
}

function isEvent(value: unknown): value is Event {
  return typeof value === "object" && value !== null && !Array.isArray(value) && typeof (value as Event)._tag === "string"
}

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null
}
