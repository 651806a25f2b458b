import { availableParallelism, totalmem } from "node:os"
import { CancelledError } from "../contract.ts"

/** Memory the default reckons per running script (its worker, heap and what its tools hold). */
const MEMORY_PER_SCRIPT = 256 * 2 ** 20

/**
 * How many scripts run at once unless --max-scripts says: four per core (scripts mostly wait on
 * tools), no more than the memory holds at 256 MiB each, and at least two.
 */
export function defaultMaxScripts(cores = availableParallelism(), memory = totalmem()): number {
  return Math.max(2, Math.min(cores * 4, Math.floor(memory / MEMORY_PER_SCRIPT)))
}

interface Waiter {
  take(): void
}

/**
 * At most `limit` scripts run at once; the others wait for a slot in the order they came, so the
 * executor's memory stays bounded whatever a client sends.
 */
export class ScriptSlots {
  private running = 0
  /** A Set keeps the order of arrival and lets a cancelled waiter leave from the middle. */
  private readonly waiting = new Set<Waiter>()

  constructor(readonly limit: number) {}

  /** Scripts running now (for tests and diagnostics). */
  get busy(): number {
    return this.running
  }

  /**
   * Resolves once a slot is the caller's (give it back with `release`). Rejects if `signal`
   * aborts first: the caller then never had it.
   */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new CancelledError())
    if (this.running < this.limit && this.waiting.size === 0) {
      this.running++
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiting.delete(waiter)
        reject(signal?.reason ?? new CancelledError())
      }
      const waiter: Waiter = {
        take: () => {
          signal?.removeEventListener("abort", onAbort)
          resolve()
        },
      }
      this.waiting.add(waiter)
      signal?.addEventListener("abort", onAbort, { once: true })
    })
  }

  /** Gives a slot back: the longest waiter gets it. */
  release(): void {
    const [next] = this.waiting
    if (next) {
      this.waiting.delete(next)
      next.take()
    } else this.running--
  }
}

/** One execute's hold on a slot, given back however the script ends, and never twice. */
export class SlotLease {
  private held = false
  private closed = false

  constructor(private readonly slots: ScriptSlots) {}

  /** Takes a slot; one that comes after `close` goes straight back (and the take rejects). */
  take(signal?: AbortSignal): Promise<void> {
    return this.slots.acquire(signal).then(() => {
      if (this.closed) {
        this.slots.release()
        throw new CancelledError()
      }
      this.held = true
    })
  }

  give(): void {
    if (!this.held) return
    this.held = false
    this.slots.release()
  }

  /** The script ended: its slot goes back, and so does any it was still waiting for. */
  close(): void {
    this.closed = true
    this.give()
  }
}
