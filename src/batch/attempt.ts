/**
 * One attempt at a task: `clanka run --output ndjson … -` as a child process, the prompt on its
 * stdin, its events read as they come. A child per task keeps each run exactly `clanka run` (its
 * flags, config, hooks, session) and isolated: a task that crashes or leaks takes no other down.
 */
import { existsSync } from "node:fs"
import { constants } from "node:os"
import { selfCommand } from "../executor/self.ts"

/**
 * On Linux the child is killed with this process (PR_SET_PDEATHSIG through util-linux's setpriv):
 * a worker killed outright must not leave its tasks running, spending and writing the session
 * another worker is about to resume. Elsewhere (no setpriv) such a child runs on to its end.
 */
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => process.platform === "linux" && existsSync(path))

export interface AttemptOptions {
  /** The arguments after `clanka run`, with `-` last (the prompt is read from stdin). */
  args: string[]
  prompt: string
  env?: Record<string, string | undefined>
  /** Aborting it stops the child as Ctrl-C would (it saves its session and exits 130). */
  signal: AbortSignal
  onSession?: (sessionId: string) => void
  /** The attempt's cost so far (cumulative, sub-agents included), at each model response. */
  onCost?: (costUsd: number) => void
}

export interface AttemptOutcome {
  exitCode: number
  sessionId: string | null
  /** null when the model has no price. */
  costUsd: number | null
  turns: number
  summary: string | null
  error: string | null
}

/** How long a child told to stop may take before it is killed. */
const STOP_GRACE_MS = 30_000

export async function runAttempt(options: AttemptOptions): Promise<AttemptOutcome> {
  const argv = [...(SETPRIV ? [SETPRIV, "--pdeathsig", "KILL", "--"] : []), ...selfCommand(), "run", "--output", "ndjson", ...options.args]
  const child = Bun.spawn(argv, {
    env: { ...process.env, ...options.env },
    stdin: new Blob([options.prompt]),
    stdout: "pipe",
    stderr: "pipe",
    // A process group of its own: a Ctrl-C typed at the terminal reaches the batch alone, which
    // passes it on once (a second SIGINT would make the child exit without winding down).
    detached: true,
  })
  let killer: ReturnType<typeof setTimeout> | undefined
  const stop = () => {
    child.kill("SIGINT")
    killer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS)
  }
  if (options.signal.aborted) stop()
  else options.signal.addEventListener("abort", stop, { once: true })

  const outcome: AttemptOutcome = { exitCode: 1, sessionId: null, costUsd: 0, turns: 0, summary: null, error: null }
  let finished = false
  const onEvent = (event: any) => {
    switch (event?._tag) {
      case "AgentStart":
        outcome.sessionId = event.sessionId ?? null
        if (outcome.sessionId) options.onSession?.(outcome.sessionId)
        return
      case "Usage":
        outcome.turns++
        outcome.costUsd = event.costUsd ?? null
        if (event.costUsd != null) options.onCost?.(event.costUsd)
        return
      case "AgentFinished":
        finished = true
        outcome.summary = event.summary
        outcome.turns = event.turns
        outcome.costUsd = event.usage?.costUsd ?? null
        if (event.usage?.costUsd != null) options.onCost?.(event.usage.costUsd)
        return
      case "AgentError":
        outcome.error = event.message
        return
    }
  }
  const [, stderr, code] = await Promise.all([readLines(child.stdout, onEvent), tail(child.stderr), child.exited])
  clearTimeout(killer)
  options.signal.removeEventListener("abort", stop)
  outcome.exitCode = child.signalCode ? 128 + signalNumber(child.signalCode) : code
  if (outcome.exitCode === 0 && !finished) {
    outcome.exitCode = 1
    outcome.error = "clanka run ended without finishing the task"
  }
  if (outcome.exitCode !== 0 && outcome.error === null) {
    // No AgentError line: the last thing it said, or how it ended.
    const said = stderr.trimEnd().split("\n").at(-1)?.replace(/^clanka: /, "")
    outcome.error = said || (child.signalCode ? `clanka run was killed by ${child.signalCode}` : `clanka run exited with ${code}`)
  }
  return outcome
}

/** Calls `onEvent` with each NDJSON line of the stream as it arrives; other lines are skipped. */
async function readLines(stream: ReadableStream<Uint8Array>, onEvent: (event: unknown) => void): Promise<void> {
  const decoder = new TextDecoder()
  let pending = ""
  const take = (line: string) => {
    if (!line.startsWith("{")) return
    try {
      onEvent(JSON.parse(line))
    } catch {
      // not an event
    }
  }
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true })
    let newline: number
    while ((newline = pending.indexOf("\n")) !== -1) {
      take(pending.slice(0, newline))
      pending = pending.slice(newline + 1)
    }
  }
  take(pending + decoder.decode())
}

/** The last 8 KiB a stream carried. */
async function tail(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder()
  let text = ""
  for await (const chunk of stream) text = (text + decoder.decode(chunk, { stream: true })).slice(-8192)
  return text
}

function signalNumber(signal: string | number): number {
  return typeof signal === "number" ? signal : (constants.signals[signal as keyof typeof constants.signals] ?? 0)
}
