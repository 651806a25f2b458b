/**
 * Newline-delimited framing for the protocol. Reading never buffers more than `maxLineBytes` of one
 * line: a longer line is reported once and skipped up to the next newline, where reading resyncs.
 * Writing batches lines into few large writes and honours the stream's backpressure.
 */

/** Large enough for any real script or tool call, small enough that garbage cannot exhaust memory. */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024

export type Frame = { line: string } | { tooLong: true; limit: number }

/**
 * Splits a byte stream into lines (without "\n" or a trailing "\r"). Only "\n" ends a line: a
 * lone "\r", U+2028 or U+2029 stays in it (JSON allows them). Blank lines are skipped unless
 * `blank` (a reader that numbers lines needs them).
 */
export async function* readFrames(
  input: AsyncIterable<Uint8Array | string>,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  blank = false,
): AsyncGenerator<Frame> {
  let parts: Buffer[] = []
  let partLength = 0
  let skipping = false
  for await (const data of input) {
    const chunk = typeof data === "string" ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    let start = 0
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start)
      const end = newline === -1 ? chunk.length : newline
      if (skipping) {
        if (newline !== -1) skipping = false
      } else if (partLength + (end - start) > maxLineBytes) {
        parts = []
        partLength = 0
        skipping = newline === -1
        yield { tooLong: true, limit: maxLineBytes }
      } else if (newline === -1) {
        // Copy: the stream may reuse its buffer for the next chunk.
        parts.push(Buffer.from(chunk.subarray(start, end)))
        partLength += end - start
      } else {
        let line: string
        if (parts.length === 0) line = chunk.toString("utf8", start, end)
        else {
          parts.push(chunk.subarray(start, end))
          line = Buffer.concat(parts, partLength + end - start).toString("utf8")
          parts = []
          partLength = 0
        }
        if (line.endsWith("\r")) line = line.slice(0, -1)
        if (blank || line.trim() !== "") yield { line }
      }
      start = newline === -1 ? chunk.length : newline + 1
    }
  }
  if (!skipping && partLength > 0) {
    const line = Buffer.concat(parts, partLength).toString("utf8")
    if (line.trim() !== "") yield { line }
  }
}

/** The part of a Node writable stream the writer needs (process.stdout, a child's stdin, …). */
export interface Sink {
  write(chunk: string): boolean
  once(event: "drain" | "close" | "error", listener: (...args: any[]) => void): unknown
  removeListener(event: "drain" | "close" | "error", listener: (...args: any[]) => void): unknown
  readonly destroyed?: boolean
}

const FLUSH_BYTES = 256 * 1024

/**
 * Writes one JSON message per line. Lines written in the same tick go out as one write; `send`
 * resolves at once unless the stream is full, in which case it resolves when it drains (or closes).
 */
export class LineWriter {
  private pending: string[] = []
  private pendingBytes = 0
  private scheduled = false
  private full: Promise<void> | undefined
  private closed = false

  constructor(private readonly sink: Sink) {}

  send(message: unknown): Promise<void> | undefined {
    return this.sendLine(JSON.stringify(message) + "\n")
  }

  /** Sends an already serialized message; `line` ends with "\n". */
  sendLine(line: string): Promise<void> | undefined {
    if (this.closed) return undefined
    this.pending.push(line)
    this.pendingBytes += line.length
    if (this.pendingBytes >= FLUSH_BYTES) this.flush()
    else if (!this.scheduled) {
      this.scheduled = true
      setImmediate(() => this.flush())
    }
    return this.full
  }

  /** Resolves when the stream can take more; undefined when it already can. */
  get drained(): Promise<void> | undefined {
    return this.full
  }

  flush(): void {
    this.scheduled = false
    if (this.pending.length === 0 || this.closed) return
    const data = this.pending.length === 1 ? this.pending[0]! : this.pending.join("")
    this.pending = []
    this.pendingBytes = 0
    if (this.sink.destroyed) return this.close()
    let ok: boolean
    try {
      ok = this.sink.write(data)
    } catch {
      return this.close()
    }
    if (!ok && !this.full) {
      this.full = new Promise<void>((resolve) => {
        const done = () => {
          this.sink.removeListener("drain", done)
          this.sink.removeListener("close", done)
          this.sink.removeListener("error", done)
          this.full = undefined
          resolve()
        }
        this.sink.once("drain", done)
        this.sink.once("close", done)
        this.sink.once("error", done)
      })
    }
  }

  /** Stops writing; later sends are dropped (the peer is gone). */
  close(): void {
    this.closed = true
    this.pending = []
    this.pendingBytes = 0
  }
}
