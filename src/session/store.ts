/**
 * Where sessions live and how they are found: one `<id>.jsonl` per session in
 * `$CLANKA_HOME/sessions`, else `$XDG_STATE_HOME/clanka/sessions`, else
 * `~/.local/state/clanka/sessions`. Listing reads only each file's first line and its tail, so it
 * stays fast with many long sessions.
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readFileSync, readSync, readdirSync, realpathSync, statSync } from "node:fs"
import { basename, join } from "node:path"
import { UsageError } from "../errors.ts"
import { envFlag } from "../util/env-flag.ts"
import { isHeader, isPid, isTotals, parseLine, type SessionHeader, type SessionTotals } from "./transcript.ts"
import { stateDirectory } from "../util/home.ts"

export { stateDirectory }

export type Env = Record<string, string | undefined>

export function sessionsDirectory(env: Env = process.env): string {
  return join(stateDirectory(env), "sessions")
}

/** A directory as sessions record it: with symlinks resolved, when it exists. */
export function realDirectory(directory: string): string {
  try {
    return realpathSync(directory)
  } catch {
    return directory
  }
}

export function sessionsDisabled(env: Env = process.env): boolean {
  return envFlag(env.CLANKA_NO_SESSION)
}

export type SessionStatus = "finished" | "failed" | "interrupted" | "running"

export interface SessionSummary extends SessionTotals {
  id: string
  path: string
  header: SessionHeader
  status: SessionStatus
}

const HEAD_BYTES = 2 * 1024
/**
 * A finished run ends with its AgentFinished, totals and close lines: the last 2 KiB hold them.
 * Wider reads look further back (a long last line, a run still going), up to 16 MiB: past that a
 * listing says what it found rather than read a huge (or sparse) file whole.
 */
const TAIL_STEPS = [2 * 1024, 32 * 1024, 1024 * 1024, 16 * 1024 * 1024]
/** The most of a transcript read whole (resume, fork, show): far above any real session. */
export const TRANSCRIPT_MAX_BYTES = 512 * 1024 * 1024

/** One buffer for the small reads of a listing, grown when a whole file must be read. */
let scratch = Buffer.allocUnsafe(16 * 1024)

function readRange(fd: number, position: number, length: number): string {
  if (scratch.length < length) scratch = Buffer.allocUnsafe(length)
  const read = readSync(fd, scratch, 0, length, position)
  return scratch.toString("utf8", 0, read)
}

/** Whether the process that holds a session open is alive (on this machine). */
function alive(pid: number, host: string): boolean {
  if (host !== hostName()) return false
  if (process.platform === "linux") {
    // /proc, not kill(pid, 0): no exception per dead process, which a listing of many pays for.
    // A killed process can linger as a zombie until it is reaped: that is a dead one.
    const status = `/proc/${pid}/status`
    if (!existsSync(status)) return false
    try {
      return !/^State:\s+Z/m.test(readFileSync(status, "utf8"))
    } catch {
      return false
    }
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

let cachedHost: string | undefined
export function hostName(): string {
  return (cachedHost ??= process.getBuiltinModule("node:os").hostname())
}

/**
 * The summary of one transcript: its header, its totals and its status. Status rules: `running`
 * while the process that last wrote it has not closed it and is alive; otherwise the end of its
 * last run — AgentFinished `finished`, AgentError with exit code 130 `interrupted`, another
 * AgentError `failed`, no end at all (killed, crashed) `interrupted`.
 */
export function summarize(path: string): SessionSummary | undefined {
  return withFile(path, (fd, size) => {
    const header = headerAt(fd, size)
    // A header naming another id (a copied or hand-made file) is not this file's session: resuming
    // it would write under one id what listings and AgentStart call another.
    if (!header || `${header.id}.jsonl` !== basename(path)) return undefined
    // Wider reads from the end until the facts are found (a long last line, a run still going),
    // the whole file last.
    let facts: TailFacts = {}
    for (const step of TAIL_STEPS) {
      const whole = step >= size
      facts = tailFacts(whole ? readRange(fd, 0, size) : dropFirstLine(readRange(fd, size - step, step)))
      if (whole || (facts.totals && facts.open && facts.end)) break
    }
    // A writer that closed the file is not asked after: most sessions cost no liveness check.
    const status: SessionStatus =
      !facts.closed && facts.open && alive(facts.open.pid, facts.open.host) ? "running" : (facts.end ?? "interrupted")
    return { id: header.id, path, header, status, turns: facts.totals?.turns ?? 0, costUsd: facts.totals ? facts.totals.costUsd : 0 }
  })
}

/**
 * `read` on the open file and its size; undefined when it cannot be opened or is not a regular
 * file (a directory or a FIFO named like a transcript is skipped; the FIFO is opened without
 * waiting for a writer). A symbolic link is not followed: a transcript is read and written only
 * where the sessions directory holds it, never in a file a link points to (another user's, /etc/…).
 */
function withFile<T>(path: string, read: (fd: number, size: number) => T | undefined): T | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
  } catch {
    return undefined
  }
  try {
    const info = fstatSync(fd)
    return info.isFile() ? read(fd, info.size) : undefined
  } finally {
    closeSync(fd)
  }
}

/** A session's whole transcript text, for resume, fork and show; one clear error when it is too big. */
export function readTranscriptText(session: Pick<SessionSummary, "id" | "path">): string {
  const text = withFile(session.path, (fd, size) => {
    if (size > TRANSCRIPT_MAX_BYTES) {
      throw new UsageError(`session ${session.id} is too large to read: ${(size / 2 ** 20).toFixed(0)} MiB (at most ${TRANSCRIPT_MAX_BYTES / 2 ** 20} MiB)`)
    }
    return readFileSync(fd, "utf8")
  })
  if (text === undefined) throw new UsageError(`session ${session.id} is unreadable: ${session.path} is not a regular file`)
  return text
}

/** The transcripts' file names in the sessions directory (none when it does not exist yet). */
function transcriptNames(directory: string): string[] {
  try {
    return readdirSync(directory).filter((name) => name.endsWith(".jsonl"))
  } catch {
    return []
  }
}

function dropFirstLine(text: string): string {
  return text.slice(text.indexOf("\n") + 1)
}

interface TailFacts {
  totals?: SessionTotals
  open?: { pid: number; host: string }
  /** The newest writer closed the file (a `close` line after its last `open`/`totals`). */
  closed?: boolean
  end?: SessionStatus
}

/**
 * The facts of the newest lines, read from the end. Only the lines that can hold a fact are
 * parsed (the writer puts `type` first, and an event's `_tag` first), which keeps a listing of
 * many sessions cheap; a cut-off first or last line is skipped.
 */
function tailFacts(text: string): TailFacts {
  const facts: TailFacts = {}
  let end = text.lastIndexOf("\n")
  while (end > 0 && !(facts.totals && facts.open && facts.end)) {
    // (`closed` is only ever set before `open`, so it is known once `open` is.)
    const start = text.lastIndexOf("\n", end - 1) + 1
    const raw = text.slice(start, end)
    end = start - 1
    if (raw.startsWith('{"type":"close"')) {
      if (!facts.open) facts.closed = true
      continue
    }
    const relevant = raw.startsWith('{"type":"totals"') || raw.startsWith('{"type":"open"') || raw.startsWith('{"type":"event","event":{"_tag":"Agent')
    if (!relevant) continue
    const line = parseLine(raw)
    if (!line) continue
    // A hand-edited line's fields may be anything: totals that are not counts are skipped, and so
    // is a writer that is not a process id (`"self"` would make /proc call any session running).
    if (line.type === "totals" && !facts.totals && isTotals(line)) facts.totals = { turns: line.turns, costUsd: line.costUsd }
    // The newest line that names the writing process: an open, or totals (which repeat it).
    if ((line.type === "open" || line.type === "totals") && !facts.open && isPid(line.pid) && typeof line.host === "string") facts.open = { pid: line.pid, host: line.host }
    else if (line.type === "event" && facts.end === undefined) {
      const event = line.event
      if (event._tag === "AgentFinished") facts.end = "finished"
      else if (event._tag === "AgentError") facts.end = event.exitCode === 130 ? "interrupted" : "failed"
      // A run that started after the last end and never ended was cut off.
      else if (event._tag === "AgentStart") facts.end = "interrupted"
    }
  }
  return facts
}

/** Every session, newest first. */
export function listSessions(env: Env = process.env): SessionSummary[] {
  const directory = sessionsDirectory(env)
  const sessions: SessionSummary[] = []
  for (const name of transcriptNames(directory)) {
    const summary = summarize(`${directory}/${name}`)
    if (summary) sessions.push(summary)
  }
  return sessions.sort((a, b) => (a.header.started < b.header.started ? 1 : a.header.started > b.header.started ? -1 : 0))
}

/**
 * The newest session matching `wanted`, reading only each file's header (its first line), then
 * the one found in full: --continue with many sessions does not read every tail.
 */
export function newestSession(wanted: (header: SessionHeader) => boolean, env: Env = process.env): SessionSummary | undefined {
  const directory = sessionsDirectory(env)
  // The newest is the one written to last (a session resumed yesterday beats one started before it).
  let best: { header: SessionHeader; path: string; written: number } | undefined
  for (const name of transcriptNames(directory)) {
    const path = join(directory, name)
    const header = readHeader(path)
    if (!header || `${header.id}.jsonl` !== name || !wanted(header)) continue
    const written = statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0
    if (!best || written > best.written || (written === best.written && header.started > best.header.started)) best = { header, path, written }
  }
  return best && summarize(best.path)
}

function readHeader(path: string): SessionHeader | undefined {
  return withFile(path, headerAt)
}

/** The header line of an open transcript of `size` bytes, if it has a complete one. */
function headerAt(fd: number, size: number): SessionHeader | undefined {
  let head = readRange(fd, 0, Math.min(size, HEAD_BYTES))
  // The header is one line; a long cwd or prompt title can take it past the first read.
  if (!head.includes("\n") && size > HEAD_BYTES) head = readRange(fd, 0, Math.min(size, 1 << 20))
  const newline = head.indexOf("\n")
  const line = newline === -1 ? undefined : parseLine(head.slice(0, newline))
  return isHeader(line) ? line : undefined
}

/** The session whose id is `id` or starts with it; one clear error when none or several match. */
export function findSession(id: string, env: Env = process.env): SessionSummary {
  const wanted = id.trim().toLowerCase()
  if (!/^[0-9a-f-]+$/.test(wanted)) throw new UsageError(`"${id}" is not a session id (see clanka sessions)`)
  const directory = sessionsDirectory(env)
  const matches = transcriptNames(directory).filter((name) => name.startsWith(wanted))
  if (matches.length === 0) throw new UsageError(`no session ${id} in ${directory} (see clanka sessions --all)`)
  if (matches.length > 1) {
    const ids = matches.slice(0, 5).map((name) => name.slice(0, -".jsonl".length))
    throw new UsageError(`session id ${id} is ambiguous: it starts ${matches.length} sessions (${ids.join(", ")}${matches.length > 5 ? ", …" : ""}); give more of it`)
  }
  const path = join(directory, matches[0]!)
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw new UsageError(`session ${id} is unreadable: ${path} is a symbolic link, which clanka does not follow in its sessions directory`)
  }
  const summary = summarize(path)
  if (!summary) throw new UsageError(`session ${id} is unreadable: ${path} has no header line of that session`)
  return summary
}

/** Two places are the same when the same kind of executor reaches the same directory/target. */
export function samePlace(header: SessionHeader, place: { executor: SessionHeader["executor"]; directory?: string }): boolean {
  const a = header.executor
  const b = place.executor
  if (a.kind !== b.kind) return false
  if (a.kind === "ssh" && b.kind === "ssh") return a.target === b.target
  if (a.kind === "command" && b.kind === "command") return a.command === b.command
  return header.directory === place.directory
}
