/**
 * stdout and stderr for `run`, written straight to their descriptors (write(2), in order) instead
 * of through process.stdout and process.stderr: building those Node streams cost every run ~5 ms
 * of CPU (~10 ms on a terminal, where node:tty loads), on its way to the sandbox. As Node does
 * for pipes and files on Linux, a write returns once the bytes are written: a slow reader holds
 * the run up rather than filling memory. A write that fails (the reader left: EPIPE) is told to
 * the listeners once (interrupt.ts stops the run), and later writes are dropped.
 */
import { writeSync } from "node:fs"
import type { Sink } from "../output/sink.ts"
import { terminalOf } from "./terminal.ts"

export class DescriptorOutput implements Sink {
  private left = false
  private readonly listeners = new Set<() => void>()
  private terminal: boolean | undefined

  constructor(private readonly fd: 1 | 2) {}

  write(text: string): boolean {
    if (this.left || text === "") return !this.left
    const bytes = Buffer.from(text)
    let offset = 0
    while (offset < bytes.length) {
      try {
        offset += writeSync(this.fd, bytes, offset)
      } catch (error) {
        // A descriptor another process made non-blocking (a shared terminal): wait for room.
        if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
          Atomics.wait(pause, 0, 0, 1)
          continue
        }
        this.left = true
        for (const listener of this.listeners) listener()
        return false
      }
    }
    return true
  }

  /** Whether it is a terminal (asked once). */
  get isTTY(): boolean {
    this.terminal ??= terminalOf(this.fd).isTTY
    return this.terminal
  }

  /** The terminal's width now (it may have been resized); undefined when not a terminal. */
  get columns(): number | undefined {
    return this.isTTY ? terminalOf(this.fd).columns : undefined
  }

  /** Calls `listener` when a write finds the reader gone; returns the way to stop listening. */
  onReaderLeft(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4))

export const stdout = new DescriptorOutput(1)
export const stderr = new DescriptorOutput(2)
