/**
 * Writes a session's transcript as the agent works: each line is written with one synchronous
 * append, so what happened is on disk when the next thing starts and a crash loses at most the
 * line being written. The directory is 0700 and the files 0600; values of the agent's secret
 * variables (`*_API_KEY`, `*_TOKEN`, …) are replaced before a line is written, whatever echoed
 * them (a model, a provider's error message).
 */
import { closeSync, constants, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from "node:fs"
import { join } from "node:path"
import type { AgentEvent } from "../agent/events.ts"
import type { Message } from "../providers/model.ts"
import { VERSION } from "../version.ts"
import { ClankaError, ExitCode } from "../errors.ts"
import { savedMessage } from "./images.ts"
import { Redactor, secretValues } from "./redact.ts"
import { portableJson } from "../output/json-line.ts"
import { hostName, readTranscriptText, sessionsDirectory, summarize, type Env, type SessionSummary } from "./store.ts"
import { claimFile } from "./claim.ts"
import { parseTranscript, promptTitle, type SessionHeader, type SessionPlace, type SessionTotals, type TranscriptLine } from "./transcript.ts"

/** What the agent hands its session: called as history items, events and output happen. */
export interface SessionSink {
  readonly id: string
  event(event: AgentEvent): void
  message(message: Message): void
  /** Console output of a running top-level script. */
  output(call: string, text: string): void
  /** The history after a compaction. */
  compaction(history: Message[]): void
  /** What a request outside any run cost (`/compact`'s summary), added to the session's totals. */
  spent(costUsd: number | null): void
}

export interface NewSession {
  env?: Env
  cwd: string
  executor: SessionPlace
  model: string
  subagentModel?: string
}

/** At most this much of one script's output is saved while it runs (what the model sees is capped alike). */
const OUTPUT_SAVED_BYTES = 64 * 1024

export class SessionRecorder implements SessionSink {
  private fd: number | undefined
  private totals: SessionTotals
  /** Totals when the current run started: a run's Usage is cumulative for that run. */
  private base: SessionTotals
  private outputSaved = new Map<string, number>()
  /** Per sub-agent, the call whose live output is being saved. */
  private liveCall = new Map<string, string>()
  private readonly redactor: Redactor

  private constructor(
    readonly id: string,
    readonly path: string,
    private readonly pending: Omit<SessionHeader, "directory" | "prompt" | "started"> | undefined,
    totals: SessionTotals,
    env: Env,
  ) {
    this.totals = { ...totals }
    this.base = { ...totals }
    this.redactor = new Redactor(secretValues(env))
  }

  /** A new session; its file is made when its first run starts (AgentStart). */
  static create(options: NewSession, forkedFrom?: string): SessionRecorder {
    const env = options.env ?? process.env
    const id = crypto.randomUUID()
    const header = {
      type: "header" as const,
      format: 1 as const,
      id,
      cwd: options.cwd,
      executor: options.executor,
      model: options.model,
      ...(options.subagentModel === undefined ? {} : { subagentModel: options.subagentModel }),
      clanka: VERSION,
      ...(forkedFrom === undefined ? {} : { forkedFrom }),
    }
    return new SessionRecorder(id, join(sessionsDirectory(env), `${id}.jsonl`), header, { turns: 0, costUsd: 0 }, env)
  }

  /**
   * Goes on writing an existing session (--resume, --continue). A line cut off by a crash is
   * removed first, so the next line starts on a line of its own.
   */
  static reopen(session: SessionSummary, env: Env = process.env): SessionRecorder {
    const inUse = () => new ClankaError(`session ${session.id} is in use by another clanka (still running); wait for it to end, or --fork it`, ExitCode.usage)
    if (session.status === "running") throw inUse()
    // Two clanka resuming one session at once: between seeing it idle and writing its `open`
    // line, each holds the claim; the second then sees the first's line and is refused.
    const claim = claimFile(session.path)
    try {
      if (summarize(session.path)?.status === "running") throw inUse()
      return SessionRecorder.reopenClaimed(session, env)
    } finally {
      claim.release()
    }
  }

  private static reopenClaimed(session: SessionSummary, env: Env): SessionRecorder {
    const recorder = new SessionRecorder(session.id, session.path, undefined, session, env)
    // Never through a symbolic link put there after the session was found.
    const fd = openSync(session.path, constants.O_RDWR | constants.O_NOFOLLOW)
    const size = fstatSync(fd).size
    // The end of the last whole line: looked for in a growing window from the end.
    for (let window = 64 * 1024; ; window *= 4) {
      const tail = Buffer.alloc(Math.min(size, window))
      readSync(fd, tail, 0, tail.length, size - tail.length)
      const last = tail.lastIndexOf(10)
      if (last === -1 && tail.length < size) continue
      if (last !== tail.length - 1) ftruncateSync(fd, size - tail.length + last + 1)
      break
    }
    closeSync(fd)
    recorder.fd = openSync(session.path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW)
    recorder.writeOpen(session.id)
    return recorder
  }

  /** A new session starting from a copy of `source`'s transcript (--fork). */
  static fork(source: SessionSummary, options: NewSession): SessionRecorder {
    const recorder = SessionRecorder.create(options, source.id)
    recorder.totals = { turns: source.turns, costUsd: source.costUsd }
    recorder.base = { ...recorder.totals }
    const lines = parseTranscript(readTranscriptText(source))
    recorder.openFile({ directory: source.header.directory, prompt: source.header.prompt })
    for (const line of lines) if (line.type !== "header" && line.type !== "open" && line.type !== "close") recorder.write(line)
    // Last, so the copied lines' process is not taken for this one's.
    recorder.writeOpen(source.id)
    return recorder
  }

  event(event: AgentEvent): void {
    if (event._tag === "AgentStart" && this.fd === undefined) {
      this.openFile({ directory: event.directory, prompt: event.prompt })
    }
    if (this.fd === undefined) return
    const redacted = this.streamed(event)
    if (redacted === undefined) return
    this.write({ type: "event", event: redacted })
    switch (event._tag) {
      case "AgentStart":
        this.base = { ...this.totals }
        return
      case "Usage":
        this.totals = { turns: this.totals.turns + 1, costUsd: add(this.base.costUsd, event.costUsd) }
        this.write({ type: "totals", ...this.totals, pid: process.pid, host: hostName() })
        return
      case "AgentFinished":
        // The final figures include sub-agents that ended after the last response.
        this.totals = { turns: this.base.turns + event.turns, costUsd: add(this.base.costUsd, event.usage.costUsd) }
        this.write({ type: "totals", ...this.totals, pid: process.pid, host: hostName() })
        return
    }
  }

  message(message: Message): void {
    if (message.role === "tool") {
      this.outputSaved.delete(message.toolCallId)
      this.endOutput(message.toolCallId)
    }
    this.write({ type: "message", message: savedMessage(message) })
  }

  output(call: string, text: string): void {
    const saved = this.outputSaved.get(call) ?? 0
    if (saved >= OUTPUT_SAVED_BYTES) return
    const piece = saved + text.length > OUTPUT_SAVED_BYTES ? text.slice(0, OUTPUT_SAVED_BYTES - saved) : text
    this.outputSaved.set(call, saved + piece.length)
    const shown = this.redactor.piece(`output ${call}`, piece)
    if (shown) this.write({ type: "output", call, text: shown })
  }

  compaction(history: Message[]): void {
    this.write({ type: "compaction", history: history.map(savedMessage) })
  }

  spent(costUsd: number | null): void {
    this.totals = { ...this.totals, costUsd: add(this.totals.costUsd, costUsd) }
    this.base = { ...this.base, costUsd: add(this.base.costUsd, costUsd) }
    this.write({ type: "totals", ...this.totals, pid: process.pid, host: hostName() })
  }

  /** Ends this process's writing; a listing then knows without asking that nobody writes. */
  close(): void {
    if (this.fd === undefined) return
    for (const stream of this.redactor.streams) if (stream.startsWith("output ")) this.endOutput(stream.slice("output ".length))
    this.write({ type: "close", at: new Date().toISOString() })
    closeSync(this.fd)
    this.fd = undefined
  }

  private openFile(first: { directory: string; prompt: string }): void {
    const directory = join(this.path, "..")
    mkdirSync(directory, { recursive: true, mode: 0o700 })
    // "wx": a new session never overwrites a file; 0600 before umask, which can only narrow it.
    this.fd = openSync(this.path, "wx", 0o600)
    this.write({ ...this.pending!, directory: first.directory, prompt: promptTitle(first.prompt), started: new Date().toISOString() } as SessionHeader)
    if (this.pending!.forkedFrom === undefined) this.writeOpen()
  }

  private writeOpen(resumedFrom?: string): void {
    this.write({ type: "open", pid: process.pid, host: hostName(), at: new Date().toISOString(), ...(resumedFrom === undefined ? {} : { resumedFrom }) })
  }

  /**
   * The event as it is saved: a delta carries what the redactor lets through of its block so far
   * (undefined: nothing yet); a block's end first writes what was held back as one more delta.
   */
  private streamed(event: AgentEvent): AgentEvent | undefined {
    const sub = event._tag === "SubagentPart" ? event : undefined
    const part = (sub ? sub.part : event) as { _tag: string; delta?: string }
    if (part._tag === "ScriptOutputDelta" || part._tag === "ScriptOutput") return this.liveOutput(event, sub?.id)
    const kind = part._tag.replace(/(Delta|End)$/, "")
    if (kind !== "Reasoning" && kind !== "Script") return event
    const stream = `${sub?.id ?? ""} ${kind}`
    const wrap = (inner: object): AgentEvent => (sub ? { ...sub, part: inner } : inner) as AgentEvent
    if (part._tag.endsWith("Delta")) {
      const delta = this.redactor.piece(stream, part.delta!)
      return delta ? wrap({ ...part, delta }) : undefined
    }
    if (part._tag.endsWith("End")) {
      const rest = this.redactor.end(stream)
      if (rest) this.write({ type: "event", event: wrap({ _tag: `${kind}Delta`, delta: rest }) })
    }
    return event
  }

  /**
   * A top-level script's live output is saved as `output` lines (which `sessions show` replays as
   * ScriptOutputDelta), not twice. A sub-agent's has no `output` lines: its deltas are saved as
   * events, redacted as one stream per script that ends at the sub-agent's ScriptOutput.
   */
  private liveOutput(event: AgentEvent, sub: string | undefined): AgentEvent | undefined {
    if (sub === undefined) return event._tag === "ScriptOutputDelta" ? undefined : event
    const part = (event as Extract<AgentEvent, { _tag: "SubagentPart" }>).part
    const stream = `${sub} live`
    if (part._tag === "ScriptOutputDelta") {
      this.liveCall.set(sub, part.id)
      const text = this.redactor.piece(stream, part.text)
      return text ? { ...event, part: { ...part, text } } as AgentEvent : undefined
    }
    const call = this.liveCall.get(sub)
    this.liveCall.delete(sub)
    const rest = this.redactor.end(stream)
    if (rest && call !== undefined) this.write({ type: "event", event: { _tag: "SubagentPart", id: sub, part: { _tag: "ScriptOutputDelta", id: call, text: rest } } })
    return event
  }

  private endOutput(call: string): void {
    const rest = this.redactor.end(`output ${call}`)
    if (rest) this.write({ type: "output", call, text: rest })
  }

  private write(line: TranscriptLine): void {
    if (this.fd === undefined) return
    // Redacted as JSON.stringify wrote it (the secrets' escaped forms are its), then made portable.
    writeSync(this.fd, portableJson(this.redactor.line(JSON.stringify(line))) + "\n")
  }
}

function add(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : Math.round((a + b) * 1e6) / 1e6
}
