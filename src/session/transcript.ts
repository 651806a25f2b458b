/**
 * The transcript of a session: one JSON object per line, appended as things happen. The first
 * line is the header; the others are history items, events, script output as it streams,
 * compactions (the new history, whole), running totals and the opening of the file by a process.
 * A reader ignores a last line that was cut off (a crash in the middle of a write) and any line it
 * does not understand, so a newer clanka's lines do not break an older one.
 */
import type { AgentEvent } from "../agent/events.ts"
import type { Message } from "../providers/model.ts"

/** Where the session's scripts run: this machine, an ssh target, or an executor command. */
export type SessionPlace =
  | { kind: "local" }
  /** `remoteBin`: --remote-bin, when it was given. */
  | { kind: "ssh"; target: string; remoteBin?: string }
  | { kind: "command"; command: string }

export interface SessionHeader {
  type: "header"
  /** Version of this line format. */
  format: 1
  id: string
  /** The executor's directory (a remote path over ssh). */
  directory: string
  /** The directory clanka was started in. */
  cwd: string
  executor: SessionPlace
  /** `provider/model[:effort]`, as the run was given it. */
  model: string
  subagentModel?: string
  clanka: string
  /** ISO 8601, UTC. */
  started: string
  /** The first line of the first prompt (at most 200 characters). */
  prompt: string
  /** The session this one was forked from. */
  forkedFrom?: string
}

export interface SessionTotals {
  /** Model turns of the top-level agent over the whole session. */
  turns: number
  /** Cost over the whole session, sub-agents included; null once a response had no known price. */
  costUsd: number | null
}

export type TranscriptLine =
  | SessionHeader
  /** A process opened the session for writing (new, resumed or forked). */
  | { type: "open"; pid: number; host: string; at: string; resumedFrom?: string }
  | { type: "message"; message: Message }
  | { type: "event"; event: AgentEvent }
  /** Console output of a running script (tool call `call`), saved so a crash keeps it. */
  | { type: "output"; call: string; text: string }
  /** The history after a compaction, whole: resuming starts from the last one. */
  | { type: "compaction"; history: Message[] }
  /** The writing process let go of the file (it ended, normally or by a signal it caught). */
  | { type: "close"; at: string }
  /** After each response and run: the session's totals, and the process writing (for the status). */
  | ({ type: "totals"; pid?: number; host?: string } & SessionTotals)

/**
 * The complete lines of a transcript's text; a cut-off or unreadable line is skipped. With
 * `types`, only lines of those types are parsed (the writer puts `type` first), which spares a
 * resume the parsing of every event.
 */
export function parseTranscript(text: string, types?: readonly TranscriptLine["type"][]): TranscriptLine[] {
  const prefixes = types?.map((type) => `{"type":${JSON.stringify(type)}`)
  const lines: TranscriptLine[] = []
  const end = text.lastIndexOf("\n")
  let start = 0
  while (start <= end) {
    const next = text.indexOf("\n", start)
    if (!prefixes || prefixes.some((prefix) => text.startsWith(prefix, start))) {
      const line = parseLine(text.slice(start, next))
      if (line && (!types || types.includes(line.type))) lines.push(line)
    }
    start = next + 1
  }
  return lines
}

export function parseLine(text: string): TranscriptLine | undefined {
  if (!text) return undefined
  try {
    const value = JSON.parse(text)
    return value && typeof value === "object" && typeof value.type === "string" ? (value as TranscriptLine) : undefined
  } catch {
    return undefined
  }
}

/** A header this clanka can use: a file with another one (a newer format, a damaged file) is skipped. */
export function isHeader(line: TranscriptLine | undefined): line is SessionHeader {
  if (line?.type !== "header") return false
  const header = line as Partial<SessionHeader>
  const strings = [header.id, header.directory, header.cwd, header.model, header.clanka, header.started, header.prompt]
  const optional = [header.subagentModel, header.forkedFrom]
  return (
    header.format === 1 &&
    strings.every((value) => typeof value === "string") &&
    optional.every((value) => value === undefined || typeof value === "string") &&
    isPlace(header.executor)
  )
}

/** An executor as a header names it, each field of its kind text (a file anyone may have edited). */
function isPlace(place: unknown): place is SessionPlace {
  if (typeof place !== "object" || place === null) return false
  const value = place as Record<string, unknown>
  if (value.kind === "local") return true
  if (value.kind === "command") return typeof value.command === "string"
  return value.kind === "ssh" && typeof value.target === "string" && (value.remoteBin === undefined || typeof value.remoteBin === "string")
}

/** Totals as a listing can use them: counts that are numbers at least 0 (else the line is ignored). */
export function isTotals(line: { turns?: unknown; costUsd?: unknown }): line is SessionTotals {
  const count = (value: unknown) => typeof value === "number" && Number.isFinite(value) && value >= 0
  return count(line.turns) && (line.costUsd === null || count(line.costUsd))
}

/** A process id as `open` and `totals` lines name the writer: a whole number above 0. */
export function isPid(pid: unknown): pid is number {
  return typeof pid === "number" && Number.isSafeInteger(pid) && pid > 0
}

/** The first line of a prompt, as listings show it. */
export function promptTitle(prompt: string): string {
  const line = prompt.trim().split(/\r?\n/)[0] ?? ""
  if (line.length <= 200) return line
  // Cut between characters: half of a surrogate pair is invalid text (strict JSON parsers reject it).
  const end = /[\ud800-\udbff]/.test(line[198]!) ? 198 : 199
  return `${line.slice(0, end)}…`
}
