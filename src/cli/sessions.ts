/**
 * `clanka sessions [--json] [--all]` lists saved sessions, newest first (by default those of the
 * current directory); `clanka sessions show ID [--json | -o FORMAT]` replays one session's events
 * through a formatter, as `clanka run` printed them.
 */
import { defineCommand } from "./define-command.ts"
import { sessions as spec } from "./commands.ts"
import { ExitCode, UsageError } from "../errors.ts"
import { jsonLine } from "../output/json-line.ts"
import { visible } from "../output/visible.ts"
import { findSession, listSessions, readTranscriptText, realDirectory, sessionsDirectory, type SessionSummary } from "../session/store.ts"
import { parseTranscript } from "../session/transcript.ts"

export default defineCommand({
  ...spec,
  async run({ args }): Promise<number> {
    const words: string[] = args._ ?? []
    if (words.length === 0) {
      if (args.output !== undefined) throw new UsageError("--output applies to clanka sessions show ID")
      return list(Boolean(args.json), Boolean(args.all))
    }
    if (words[0] !== "show") throw new UsageError(`unknown sessions action "${words[0]}": use clanka sessions, or clanka sessions show ID`)
    if (words[1] === undefined) throw new UsageError("missing ID: clanka sessions show ID (see clanka sessions)")
    if (args.all) throw new UsageError("--all applies to the list, not to clanka sessions show")
    return await show(words[1], args.output, Boolean(args.json))
  },
})

function list(json: boolean, all: boolean): number {
  let sessions = listSessions()
  if (!all) {
    const here = realDirectory(process.cwd())
    sessions = sessions.filter((session) => session.header.directory === here || session.header.cwd === here)
  }
  // One write: a listing of many sessions must not pay a write per line.
  if (json) {
    process.stdout.write(sessions.map((session) => jsonLine(record(session)) + "\n").join(""))
    return ExitCode.ok
  }
  if (sessions.length === 0) {
    process.stderr.write(all ? `no sessions in ${sessionsDirectory()}\n` : `no sessions of ${realDirectory(process.cwd())} (clanka sessions --all lists every directory)\n`)
    return ExitCode.ok
  }
  const now = Date.now()
  const rows = sessions.map((session) => [
    session.id.slice(0, 8),
    age(session.header.started, now),
    session.status,
    String(session.turns),
    session.costUsd === null ? "-" : `$${session.costUsd.toFixed(4)}`,
    session.header.model,
    ...(all ? [place(session)] : []),
    session.header.prompt,
  ].map(cell))
  const titles = ["ID", "STARTED", "STATUS", "TURNS", "COST", "MODEL", ...(all ? ["DIRECTORY"] : []), "PROMPT"]
  const table = [titles, ...rows]
  const widths = titles.map((_, column) => Math.max(...table.map((row) => row[column]!.length)))
  const lines = table.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : column === 3 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!))).join("  ").trimEnd(),
  )
  process.stdout.write(lines.join("\n") + "\n")
  return ExitCode.ok
}

/**
 * A table cell as the terminal shows it: every field of a header is the file's word, so control
 * characters (an ESC sequence in a model name or a directory) are shown, not obeyed, and a newline
 * or tab cannot break the row.
 */
function cell(text: string): string {
  return visible(text).replaceAll("\n", "^J").replaceAll("\t", "^I")
}

async function show(id: string, option: string | undefined, json: boolean): Promise<number> {
  // The formatters are loaded only to replay: a listing does without them.
  const [{ chooseOutputFormat }, { createFormatter }] = await Promise.all([import("../output/choose.ts"), import("../output/format.ts")])
  const output = chooseOutputFormat(option, json)
  const session = findSession(id)
  const print = createFormatter(output, { stdout: process.stdout, stderr: process.stderr, live: false })
  let events = 0
  for (const line of parseTranscript(readTranscriptText(session))) {
    if (line.type === "event") {
      events++
      // A transcript is a file anyone may have edited: an event a formatter cannot take (a field
      // of the wrong type) ends the replay with one line naming it, not with a TypeError.
      try {
        print(line.event)
      } catch {
        const tag = typeof line.event?._tag === "string" ? cell(line.event._tag.slice(0, 40)) : "no _tag"
        throw new UsageError(`session ${session.id.slice(0, 8)} cannot be shown: its event ${events} (${tag}) has fields of the wrong type (${session.path})`)
      }
    }
    // A top-level script's live output was saved once, as output lines: replayed as it was shown.
    else if (line.type === "output" && typeof line.call === "string" && typeof line.text === "string") print({ _tag: "ScriptOutputDelta", id: line.call, text: line.text })
  }
  return ExitCode.ok
}

function record(session: SessionSummary) {
  const { header } = session
  return {
    id: session.id,
    directory: header.directory,
    cwd: header.cwd,
    executor: header.executor,
    model: header.model,
    started: header.started,
    turns: session.turns,
    costUsd: session.costUsd,
    status: session.status,
    prompt: header.prompt,
    forkedFrom: header.forkedFrom ?? null,
    path: session.path,
  }
}

function place(session: SessionSummary): string {
  const { executor, directory } = session.header
  if (executor.kind === "ssh") return `ssh ${executor.target}`
  if (executor.kind === "command") return `executor ${executor.command}`
  return directory
}

/**
 * How long ago a session started: `40 s ago`, `5 min ago`, `3 h ago`, `4 d ago`, then the date.
 * Relative, like `docker ps`: no time zone to load (ICU's zone data costs a listing ~20 ms).
 */
function age(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (seconds < 60) return `${seconds} s ago`
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`
  if (seconds < 30 * 86_400) return `${Math.floor(seconds / 86_400)} d ago`
  return iso.slice(0, 10)
}

