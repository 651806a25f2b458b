/**
 * The protocol's pipes as Bun's own file streams rather than Node's streams: `clanka executor`'s
 * stdin and stdout, and the agent's pipe to the executor's stdin (remote.ts). Making Node streams
 * loads Node's whole stream machinery, a few milliseconds of every start (the agent waits for
 * it). Backpressure and a closed pipe behave as LineWriter expects of a Node stream.
 */
import type { FileSink } from "bun"
import type { Sink } from "./framing.ts"

type SinkEvent = "drain" | "close" | "error"

/** A Sink writing through `writer`; `end` sends what is still buffered. */
export function fileSink(writer: FileSink): Sink & { end(): Promise<void> } {
  const listeners: Record<SinkEvent, Set<(...args: unknown[]) => void>> = { drain: new Set(), close: new Set(), error: new Set() }
  let destroyed = false
  let pending: Promise<unknown> | undefined
  const emit = (event: SinkEvent) => {
    const waiting = [...listeners[event]]
    listeners[event].clear()
    for (const listener of waiting) listener()
  }
  const fail = () => {
    destroyed = true
    emit("error")
    emit("close")
  }
  return {
    get destroyed() {
      return destroyed
    },
    write(chunk: string): boolean {
      if (destroyed) return false
      try {
        writer.write(chunk)
        const flushed: unknown = writer.flush()
        if (flushed instanceof Promise) {
          // The pipe is full: the rest is written as the reader takes it.
          const current = flushed.then(
            () => {
              if (pending === current) pending = undefined
              emit("drain")
            },
            fail,
          )
          pending = current
          return false
        }
        return true
      } catch {
        fail()
        return false
      }
    },
    once(event: SinkEvent, listener: (...args: unknown[]) => void) {
      listeners[event].add(listener)
    },
    removeListener(event: SinkEvent, listener: (...args: unknown[]) => void) {
      listeners[event].delete(listener)
    },
    async end() {
      if (destroyed) return
      try {
        await pending
        await writer.end()
      } catch {
        // the reader is gone
      }
    },
  }
}

/** The chunks of `stream` until it ends or `stop` is called (a signal asked the executor to stop). */
export function stoppable(stream: ReadableStream<Uint8Array>): { input: AsyncIterable<Uint8Array>; stop(): void } {
  const reader = stream.getReader()
  let stop!: () => void
  const stopped = new Promise<{ done: true; value: undefined }>((resolve) => {
    stop = () => {
      resolve({ done: true, value: undefined })
      reader.cancel().catch(() => {})
    }
  })
  return {
    stop,
    input: (async function* () {
      while (true) {
        const { done, value } = await Promise.race([reader.read(), stopped])
        if (done) return
        yield value
      }
    })(),
  }
}
