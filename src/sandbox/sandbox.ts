import type { ToMain, ToWorker } from "./messages.ts"
import { seconds } from "../util/duration.ts"
import { errorMessage } from "../util/error-message.ts"

export interface RunOptions {
  script: string
  timeoutMs: number
  signal?: AbortSignal
  onOutput(text: string): void
  /** The report of a run that failed (the error and its code frame, a stop's marker); default: onOutput. */
  onReport?(text: string): void
  /** Runs a tool on this thread; rejects with the message the script sees. */
  onCall(tool: string, params: unknown): Promise<unknown>
}

/** A running script: its outcome, and the way to say its output was taken (flow control). */
export interface RunHandle {
  result: Promise<RunResult>
  /** The consumer has taken `chars` characters of output; lets a fast-printing script go on. */
  consumed(chars: number): void
}

export type RunResult =
  | { ok: true }
  | { ok: false; reason: "error" | "timeout" | "memory" | "cancelled"; error: string }

const MAX_IDLE_WORKERS = 2
/**
 * Output characters a script may have printed that the consumer has not taken yet. Past this,
 * console.log blocks the worker (Atomics.wait), so memory stays flat however much a script prints.
 */
export const OUTPUT_WINDOW_CHARS = 1 << 20

/**
 * Workers cannot be given a heap limit here, so the process's memory is watched while scripts
 * run: past the limit every running script is stopped, before the machine runs out.
 */
const MEMORY_LIMIT_MB = Number(process.env.CLANKA_SCRIPT_MEMORY_MB) || 4096
const MEMORY_CHECK_MS = 250

/**
 * A script's code can outlive it in its worker: a loop of awaits it did not wait for, or a
 * callback the engine calls later (Atomics.waitAsync, FinalizationRegistry). A worker whose event
 * loop does not come round within this long after its script ended is ended; a reused worker
 * that does not take up its next script within this long is ended and the script run by a fresh
 * worker (taking up and giving up are one atomic claim, so a script never runs twice).
 */
const STALL_MS = 1000

/** A worker and the shared counters through which it and the main thread agree. */
interface SandboxWorker {
  worker: Worker
  /** [0]: characters of output acknowledged, modulo 2^32; the worker counts what it sent. [1]: the start claim. */
  acked: Int32Array<SharedArrayBuffer>
  /** It has run a script: it answers a new one at once, unless that script's code still runs. */
  ran?: boolean
}

// Set by scripts/build.ts. In the compiled binary every module's import.meta.url is the
// binary's own, standing for the root of src/, where the embedded worker entry point lives.
declare const CLANKA_COMPILED: boolean | undefined
const WORKER_URL =
  typeof CLANKA_COMPILED !== "undefined" && CLANKA_COMPILED
    ? new URL("./sandbox/worker.ts", import.meta.url).href
    : new URL("./worker.ts", import.meta.url).href

/**
 * Runs scripts on worker threads. A worker serves one script at a time and is reused when the
 * script ends normally; a script that times out or is cancelled is stopped by terminating its
 * worker, and the next script gets a fresh one, so nothing a script does can hang the executor.
 */
export class Sandbox {
  private readonly idle: SandboxWorker[] = []
  private nextRunId = 1
  /** Running scripts, each with the way to stop it for using too much memory. */
  private readonly active = new Map<number, () => void>()
  private watchdog: ReturnType<typeof setInterval> | undefined

  /**
   * `toolNames`: the globals each script gets; each call reaches RunOptions.onCall. The tools in
   * `spread` take several arguments: their calls pass the arguments as an array.
   */
  constructor(
    private toolNames: readonly string[],
    private spread: readonly string[],
  ) {}

  /** Tools added after start (MCP servers): every script started from now on gets them. */
  setToolNames(names: readonly string[], spread: readonly string[]): void {
    this.toolNames = names
    this.spread = spread
  }

  private watch(runId: number, stop: () => void): void {
    this.active.set(runId, stop)
    this.watchdog ??= setInterval(() => {
      if (process.memoryUsage.rss() / 2 ** 20 <= MEMORY_LIMIT_MB) return
      for (const stopRun of [...this.active.values()]) stopRun()
    }, MEMORY_CHECK_MS)
    this.watchdog.unref?.()
  }

  private unwatch(runId: number): void {
    this.active.delete(runId)
    if (this.active.size === 0 && this.watchdog) {
      clearInterval(this.watchdog)
      this.watchdog = undefined
    }
  }

  /** Starts a worker ahead of the first script so that it is ready when needed. */
  warm(): void {
    if (this.idle.length === 0) this.idle.push(this.spawn())
  }

  private spawn(): SandboxWorker {
    const worker = new Worker(WORKER_URL)
    const acked = new Int32Array(new SharedArrayBuffer(8))
    worker.postMessage({ type: "init", acked, window: OUTPUT_WINDOW_CHARS, tools: { toolNames: [...this.toolNames], spread: [...this.spread] } } satisfies ToWorker)
    return { worker, acked }
  }

  close(): void {
    for (const { worker } of this.idle.splice(0)) worker.terminate()
  }

  /** Keeps a worker whose script ended for the next script, unless it does not come idle in time. */
  private keep(slot: SandboxWorker): void {
    if (this.idle.length >= MAX_IDLE_WORKERS) return slot.worker.terminate()
    slot.ran = true
    this.idle.push(slot)
    const onIdle = (event: MessageEvent<ToMain>) => {
      if (event.data.type !== "idle") return
      clearTimeout(timer)
      slot.worker.removeEventListener("message", onIdle)
    }
    const timer = setTimeout(() => {
      slot.worker.removeEventListener("message", onIdle)
      const index = this.idle.indexOf(slot)
      // A worker taken meanwhile is watched by its run's start claim.
      if (index === -1) return
      this.idle.splice(index, 1)
      slot.worker.terminate()
    }, STALL_MS)
    timer.unref?.()
    slot.worker.addEventListener("message", onIdle)
  }

  run(options: RunOptions): RunHandle {
    const reused = this.idle.pop()
    let slot = reused ?? this.spawn()
    const runId = this.nextRunId++
    let settled = false
    const consumed = (chars: number) => {
      if (settled) return
      Atomics.add(slot.acked, 0, chars)
      Atomics.notify(slot.acked, 0)
    }
    const result = new Promise<RunResult>((resolve) => {
      const finish = (result: RunResult, reusable: boolean, sent?: number) => {
        if (settled) return
        settled = true
        this.unwatch(runId)
        // Output the consumer has not taken yet no longer holds the worker back.
        if (sent !== undefined) Atomics.store(slot.acked, 0, sent)
        clearTimeout(timer)
        clearTimeout(startTimer)
        options.signal?.removeEventListener("abort", onAbort)
        listen(false)
        if (reusable && sent !== undefined) this.keep(slot)
        else slot.worker.terminate()
        resolve(result)
      }
      const onMessage = (event: MessageEvent<ToMain>) => {
        const message = event.data
        if (message.type === "idle" || message.runId !== runId) return
        switch (message.type) {
          case "output":
            options.onOutput(message.text)
            break
          case "call":
            this.answer(slot.worker, runId, message, options, () => settled)
            break
          case "done":
            finish({ ok: true }, message.reusable, message.sent)
            break
          case "failed":
            ;(options.onReport ?? options.onOutput)(message.output)
            finish({ ok: false, reason: "error", error: message.error }, message.reusable, message.sent)
            break
        }
      }
      /** Ends the run for a reason outside the script; the worker cannot be reused. */
      const stop = (reason: "error" | "timeout" | "memory", error: string, shown = `${error}\n`) => {
        ;(options.onReport ?? options.onOutput)(shown)
        finish({ ok: false, reason, error }, false)
      }
      const onError = (event: ErrorEvent) => {
        // One line: Bun's report may hold source lines and a stack around its "error: …" line.
        const lines = event.message.split("\n")
        const line = lines.find((text) => /Error\b/.test(text)) ?? lines.find((text) => /^\s*error: /.test(text)) ?? lines[0]!
        stop("error", `the sandbox worker crashed: ${line.trim()}`)
      }
      // A script that reached the worker's own process.exit ends the worker, and with it the run.
      const onClose = () => stop("error", "the script stopped the sandbox worker")
      const onAbort = () => finish({ ok: false, reason: "cancelled", error: "cancelled" }, false)
      const timer = setTimeout(() => {
        const error = `script timed out after ${seconds(options.timeoutMs)} and was stopped`
        stop("timeout", error, `\n[${error}]\n`)
      }, options.timeoutMs)
      this.watch(runId, () => {
        const error = `script stopped: the executor's memory passed ${MEMORY_LIMIT_MB} MiB (CLANKA_SCRIPT_MEMORY_MB)`
        stop("memory", error, `\n[${error}]\n`)
      })
      const listen = (on: boolean) => {
        const method = on ? "addEventListener" : "removeEventListener"
        slot.worker[method]("message", onMessage as EventListener)
        slot.worker[method]("error", onError as EventListener)
        slot.worker[method]("close", onClose)
      }
      const dispatch = () => {
        Atomics.store(slot.acked, 1, 0)
        slot.worker.postMessage({ type: "run", runId, script: options.script, toolNames: [...this.toolNames], spread: [...this.spread] } satisfies ToWorker)
      }
      // A reused worker still busy with code its last script left running: a fresh one runs the
      // script. (A worker warmed ahead may still be starting, which can take a while.)
      const startTimer = reused?.ran
        ? setTimeout(() => {
            if (settled || Atomics.compareExchange(slot.acked, 1, 0, -1) !== 0) return
            listen(false)
            slot.worker.terminate()
            slot = this.spawn()
            listen(true)
            dispatch()
          }, STALL_MS)
        : undefined
      listen(true)
      if (options.signal?.aborted) return onAbort()
      options.signal?.addEventListener("abort", onAbort)
      dispatch()
    })
    return { result, consumed }
  }

  private answer(
    worker: Worker,
    runId: number,
    { callId, tool, params }: Extract<ToMain, { type: "call" }>,
    options: RunOptions,
    isSettled: () => boolean,
  ): void {
    const reply = (message: ToWorker) => {
      if (!isSettled()) worker.postMessage(message)
    }
    // The worker made `params` with JSON.stringify.
    const parsed: unknown = params === undefined ? undefined : JSON.parse(params)
    const fail = (error: unknown) => reply({ type: "result", runId, callId, ok: false, error: errorMessage(error) })
    options.onCall(tool, parsed).then((value) => {
      let json: string | undefined
      try {
        json = value === undefined ? undefined : JSON.stringify(value)
      } catch (error) {
        // Unanswered, the script would wait for this call until its time limit.
        return fail(`${tool}: the result cannot be passed to the script (${errorMessage(error)})`)
      }
      reply({ type: "result", runId, callId, ok: true, value: json })
    }, fail)
  }
}
