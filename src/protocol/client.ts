/**
 * The agent side of the protocol: sends requests, matches responses by id, routes
 * `execute/output` notifications to the execute they belong to. Any line that is not protocol,
 * or the end of the input, fails every pending call: nothing waits forever.
 */
import * as v from "valibot"
import { DEFAULT_MAX_LINE_BYTES, LineWriter, readFrames, type Sink } from "./framing.ts"
import {
  ErrorCode,
  idKey,
  IncomingSchema,
  OutputNotificationParamsSchema,
  type ErrorObject,
  type Output,
} from "./messages.ts"

/** Executor output lines can be large (readFile of a big file); garbage still cannot grow unbounded. */
const CLIENT_MAX_LINE_BYTES = 256 * 1024 * 1024

/** A JSON-RPC error answered by the executor. */
export class RpcResponseError extends Error {
  override name = "RpcResponseError"
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

interface Pending {
  resolve(value: unknown): void
  reject(error: Error): void
  onOutput?: (output: Output) => void
}

export interface RequestOptions {
  /** Receives the `execute/output` notifications of this request. */
  onOutput?: (output: Output) => void
  /** Called with the request id once it is sent (to cancel it later). */
  onSent?: (id: number) => void
}

export interface KeepAliveOptions {
  /** A ping goes out after this long without a line from the executor while a call waits. */
  intervalMs: number
  /** This long without a line while a call waits (pings unanswered): the executor is gone. */
  timeoutMs: number
  /** The error every waiting call then rejects with. */
  onSilent(): Error
}

export class ProtocolClient {
  private readonly writer: LineWriter
  private readonly pending = new Map<string, Pending>()
  /** Keys of the pings in `pending`: they are not calls anyone waits on. */
  private readonly pings = new Set<string>()
  private nextId = 1
  private failure: Error | undefined
  /** Lets the reader wait while a consumer is behind (see `pauseUntil`). */
  private gate: Promise<void> | undefined
  /** When a line last arrived, or a call started waiting on a quiet executor. */
  private heardAt = Date.now()
  private keepAliveTimer: Timer | undefined
  /** Since when reading is held back, and how long it was before (see heldBackMs). */
  private gateSince: number | undefined
  private heldMs = 0

  constructor(
    input: AsyncIterable<Uint8Array | string>,
    output: Sink,
    /** Turns the reason reading stopped into the error every pending call rejects with. */
    private readonly lost: (reason: { notProtocol?: string; ended?: true; error?: unknown }) => Error | Promise<Error>,
  ) {
    this.writer = new LineWriter(output)
    void this.read(input)
  }

  get failed(): Error | undefined {
    return this.failure
  }

  request(method: string, params?: unknown, options: RequestOptions = {}): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure)
    const id = this.nextId++
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }) + "\n"
    // The executor skips longer lines without being able to say which request they were: refuse
    // here, where the caller can still be told.
    const bytes = Buffer.byteLength(line) - 1
    if (bytes > DEFAULT_MAX_LINE_BYTES) {
      const size = `${(bytes / 1024 / 1024).toFixed(1)} MiB`
      const limit = `${DEFAULT_MAX_LINE_BYTES / 1024 / 1024} MiB`
      return Promise.reject(new RpcResponseError(ErrorCode.invalidRequest, `the ${method} request is ${size}; the executor protocol takes at most ${limit} per message`))
    }
    // The silence that counts starts when someone waits, not when the last call ended.
    if (this.waiting === 0) this.heardAt = Date.now()
    return new Promise((resolve, reject) => {
      this.pending.set(idKey(id), { resolve, reject, onOutput: options.onOutput })
      this.writer.sendLine(line)
      options.onSent?.(id)
    })
  }

  notify(method: string, params: unknown): void {
    if (this.failure) return
    this.writer.send({ jsonrpc: "2.0", method, params })
  }

  /** Calls that wait for an answer, pings aside. */
  private get waiting(): number {
    return this.pending.size - this.pings.size
  }

  /**
   * Liveness: while a call waits, an executor quiet for `intervalMs` is pinged (it answers pings
   * even while its scripts run); quiet for `timeoutMs` fails the client. An executor too old to
   * know `ping` answers "unknown method", which is alive too.
   */
  keepAlive(options: KeepAliveOptions): void {
    clearInterval(this.keepAliveTimer)
    const check = () => {
      if (this.failure) return clearInterval(this.keepAliveTimer)
      // Reading held back by a slow consumer hears nothing; that is not the executor's silence.
      if (this.waiting === 0 || this.gate) return void (this.heardAt = Date.now())
      const now = Date.now()
      const quietMs = now - this.heardAt
      if (quietMs >= options.timeoutMs) return this.fail(options.onSilent())
      if (quietMs >= options.intervalMs && now - lastPingAt >= options.intervalMs) {
        lastPingAt = now
        this.ping()
      }
    }
    let lastPingAt = 0
    // Checked more often than pinged, so the timeout is kept to within a fraction of a ping.
    this.keepAliveTimer = setInterval(check, Math.max(10, Math.min(options.intervalMs, options.timeoutMs) / 4))
    this.keepAliveTimer.unref?.()
  }

  private ping(): void {
    // Any answer will do, an error too: an executor too old to know `ping` is alive.
    void this.request("ping", undefined, { onSent: (id) => this.pings.add(idKey(id)) }).catch(() => {})
  }

  /** Holds reading back until `promise` settles: backpressure from a slow consumer. */
  pauseUntil(promise: Promise<void>): void {
    this.gateSince ??= Date.now()
    const gate = (this.gate = promise.finally(() => {
      if (this.gate !== gate) return
      this.gate = undefined
      this.heldMs += Date.now() - this.gateSince!
      this.gateSince = undefined
    }))
  }

  /** How long reading has been held back in all: time a deadline must not count against the executor. */
  get heldBackMs(): number {
    return this.heldMs + (this.gateSince === undefined ? 0 : Date.now() - this.gateSince)
  }

  /** Fails every pending and later call with `error` (the caller also ends the transport). */
  fail(error: Error): void {
    if (this.failure) return
    this.failure = error
    this.writer.close()
    clearInterval(this.keepAliveTimer)
    for (const pending of this.pending.values()) pending.reject(error)
    this.pending.clear()
    this.pings.clear()
  }

  private async read(input: AsyncIterable<Uint8Array | string>): Promise<void> {
    try {
      for await (const frame of readFrames(input, CLIENT_MAX_LINE_BYTES)) {
        if (this.failure) return
        this.heardAt = Date.now()
        if ("tooLong" in frame) {
          return this.fail(await this.lost({ notProtocol: `a line longer than ${frame.limit} bytes` }))
        }
        const problem = this.dispatch(frame.line)
        if (problem) return this.fail(await this.lost({ notProtocol: problem }))
        if (this.gate) await this.gate
      }
      this.fail(await this.lost({ ended: true }))
    } catch (error) {
      this.fail(await this.lost({ error }))
    }
  }

  /** Handles one line; returns a description of the line when it is not protocol. */
  private dispatch(line: string): string | undefined {
    let message: unknown
    try {
      message = JSON.parse(line)
    } catch {
      return quote(line)
    }
    const parsed = v.safeParse(IncomingSchema, message)
    if (!parsed.success) return quote(line)
    const incoming = parsed.output
    if ("method" in incoming) {
      if (incoming.method !== "execute/output") return undefined // future notifications
      const params = v.safeParse(OutputNotificationParamsSchema, incoming.params)
      if (!params.success) return quote(line)
      this.pending.get(idKey(params.output.id))?.onOutput?.(params.output.output)
      return undefined
    }
    // id null: an error about a line the executor could not attribute (a late $/cancel, …).
    if (incoming.id === null) return undefined
    const key = idKey(incoming.id)
    const pending = this.pending.get(key)
    if (!pending) return undefined
    this.pending.delete(key)
    this.pings.delete(key)
    if ("error" in incoming) {
      const error = incoming.error as ErrorObject
      pending.reject(new RpcResponseError(error.code, error.message, error.data))
    } else pending.resolve(incoming.result)
    return undefined
  }
}

function quote(line: string): string {
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line)
}

export { ErrorCode }
