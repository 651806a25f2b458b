/**
 * Ctrl-C, `kill`, a closed terminal and a closed stdout (`clanka … | head -1`) all mean "stop":
 * SIGINT, SIGTERM, SIGHUP and a failing stdout (EPIPE) are handled alike. The first one aborts `signal` so the command can stop its work, close its executor
 * (which kills every process the scripts and tools started) and exit 130; a second one exits at
 * once, for when winding down itself hangs.
 */
import { ExitCode } from "../errors.ts"

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const

export interface Interrupt {
  /** Aborted when the first signal arrives. */
  readonly signal: AbortSignal
  /** Resolves when the first signal arrives (never, if none does). */
  readonly received: Promise<void>
  /** True when the stop came from stdout failing: nobody reads, so nothing more is said. */
  readonly readerLeft: boolean
  /** Stops handling the signals. */
  dispose(): void
}

/**
 * `out`: stdout as the command writes it, when not through process.stdout (stdio.ts); its reader
 * leaving counts as process.stdout failing does.
 */
export function catchInterrupts(out?: { onReaderLeft(listener: () => void): () => void }): Interrupt {
  const controller = new AbortController()
  let readerLeft = false
  let arrived!: () => void
  const received = new Promise<void>((resolve) => (arrived = resolve))
  const handler = () => {
    if (controller.signal.aborted) process.exit(ExitCode.interrupted)
    controller.abort()
    arrived()
  }
  // Nobody reads any more: stop as if interrupted (once; later write errors change nothing).
  const onStdoutError = () => {
    if (controller.signal.aborted) return
    readerLeft = true
    handler()
  }
  for (const name of SIGNALS) process.on(name, handler)
  const stopWatching = out ? out.onReaderLeft(onStdoutError) : (process.stdout.on("error", onStdoutError), () => process.stdout.off("error", onStdoutError))
  return {
    signal: controller.signal,
    received,
    get readerLeft() {
      return readerLeft
    },
    dispose: () => {
      for (const name of SIGNALS) process.off(name, handler)
      stopWatching()
    },
  }
}
