/**
 * `clanka run`'s session flags: every run is saved unless --no-session (or CLANKA_NO_SESSION=1);
 * --continue, --resume ID and --fork ID go on from a saved session. A resumed or forked run uses
 * the session's model and executor unless the command line names others.
 */
import { resolve } from "node:path"
import { UsageError } from "../errors.ts"
import type { Message } from "../providers/model.ts"
import { DamagedHistoryError, historyOf } from "../session/history.ts"
import { SessionRecorder } from "../session/recorder.ts"
import { findSession, newestSession, readTranscriptText, realDirectory, samePlace, sessionsDirectory, sessionsDisabled, type SessionSummary } from "../session/store.ts"
import { parseTranscript, type SessionPlace } from "../session/transcript.ts"

export interface SessionFlags {
  continue?: boolean
  resume?: string
  fork?: string
  session?: boolean
  model?: string
  "subagent-model"?: string
  directory?: string
  executor?: string
  ssh?: string
  "remote-bin"?: string
}

export interface SessionPlan {
  /** Saves the run; absent with --no-session. */
  recorder?: SessionRecorder
  history?: Message[]
  resumedFrom: string | null
}

/**
 * The saved session the flags name, if any. The flags are filled in from it: its model and its
 * executor, where the command line does not choose them.
 */
export function sessionSource(args: SessionFlags): SessionSummary | undefined {
  const chosen = [args.continue ? "--continue" : undefined, args.resume !== undefined ? "--resume" : undefined, args.fork !== undefined ? "--fork" : undefined].filter(Boolean)
  if (chosen.length > 1) throw new UsageError(`${chosen.join(" and ")} each choose the session to go on from; pass only one`)
  if (chosen.length === 0) return undefined
  if (args.session === false) throw new UsageError(`--no-session cannot be used with ${chosen[0]}: a resumed session is saved as it goes on`)
  if (sessionsDisabled()) throw new UsageError(`CLANKA_NO_SESSION is set, which ${chosen[0]} cannot honour: a resumed session is saved as it goes on; unset it`)
  let source: SessionSummary
  if (args.continue) {
    const place = placeOf(args)
    const found = newestSession((header) => samePlace(header, place))
    if (!found) {
      const where = place.executor.kind === "local" ? place.directory : place.executor.kind === "ssh" ? `--ssh ${place.executor.target}` : `--executor ${JSON.stringify(place.executor.command)}`
      throw new UsageError(`no session to continue for ${where} in ${sessionsDirectory()} (see clanka sessions --all)`)
    }
    source = found
  } else source = findSession((args.resume ?? args.fork)!)
  const header = source.header
  if (args.executor === undefined && args.ssh === undefined && args.directory === undefined) {
    if (header.executor.kind === "ssh") {
      args.ssh = header.executor.target
      if (!header.executor.target.includes(":")) args.directory = header.directory
      // A program read from a file is not run on the host on the file's word, as a command is not.
      if (args["remote-bin"] === undefined && header.executor.remoteBin !== undefined) {
        const bin = JSON.stringify(header.executor.remoteBin)
        throw new UsageError(`session ${source.id.slice(0, 8)} ran clanka on ${header.executor.target} as --remote-bin ${bin}; to run that program there again, pass it: --remote-bin ${bin}`)
      }
    } else if (header.executor.kind === "command") {
      // A shell command read from a file is not run on the file's word: the user names it again.
      throw new UsageError(`session ${source.id.slice(0, 8)} ran its scripts through --executor ${JSON.stringify(header.executor.command)}; to run that command again, pass it: --executor ${JSON.stringify(header.executor.command)}`)
    } else args.directory = header.directory
  }
  if (!args.model) args.model = header.model
  if (!args["subagent-model"] && header.subagentModel) args["subagent-model"] = header.subagentModel
  return source
}

const HISTORY_LINES = ["message", "compaction", "output"] as const

/** Opens the session the run is saved in: a new one, the source again (resume) or a copy (fork). */
export async function openSession(args: SessionFlags, source: SessionSummary | undefined, models: { model: string; subagentModel?: string }): Promise<SessionPlan> {
  if (!source) {
    if (args.session === false || sessionsDisabled()) return { resumedFrom: null }
    const place = placeOf(args)
    return {
      recorder: SessionRecorder.create({ cwd: process.cwd(), executor: place.executor, ...models }),
      resumedFrom: null,
    }
  }
  const history = savedHistory(source)
  if (args.fork !== undefined) {
    const place = placeOf(args)
    return { recorder: SessionRecorder.fork(source, { cwd: process.cwd(), executor: place.executor, ...models }), history, resumedFrom: source.id }
  }
  return { recorder: SessionRecorder.reopen(source), history, resumedFrom: source.id }
}

/** The history a session goes on from; a damaged transcript is one line (exit 2), not a crash. */
function savedHistory(source: SessionSummary): Message[] {
  try {
    return historyOf(parseTranscript(readTranscriptText(source), HISTORY_LINES))
  } catch (error) {
    if (error instanceof DamagedHistoryError) throw new UsageError(`session ${source.id.slice(0, 8)} cannot be resumed: ${error.message} (${source.path})`)
    throw error
  }
}

/** Where this invocation's scripts run, as sessions record it. */
function placeOf(args: SessionFlags): { executor: SessionPlace; directory?: string } {
  if (args.ssh !== undefined) return { executor: { kind: "ssh", target: args.ssh, ...(args["remote-bin"] ? { remoteBin: args["remote-bin"] } : {}) } }
  if (args.executor !== undefined) return { executor: { kind: "command", command: args.executor } }
  return { executor: { kind: "local" }, directory: realDirectory(resolve(args.directory ?? ".")) }
}
