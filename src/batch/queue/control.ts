/**
 * A queued batch's shared state, one Redis hash per batch: its budget (`cap`), what its tasks
 * have spent so far on every worker (`spent`, raised as each model response is priced), and
 * whether it must stop (`stop`: "interrupt" when the user stopped it, "budget" once spent).
 * Workers read it before a task starts and every second while it runs.
 */
import { clankaKey, type QueuePlace } from "./connection.ts"
import type { Redis } from "./redis.ts"

export type StopReason = "interrupt" | "budget"

export interface BatchState {
  capUsd?: number
  spentUsd: number
  stop?: StopReason
}

/** How long a batch's hash outlives its last change. */
const KEEP_SECONDS = 7 * 24 * 3600

export class BatchControl {
  private readonly key: string

  constructor(
    private readonly redis: Redis,
    place: QueuePlace,
    batch: string,
  ) {
    this.key = clankaKey(place, "batch", batch)
  }

  async create(capUsd: number | undefined): Promise<void> {
    await this.redis.multi().hset(this.key, { spent: "0", ...(capUsd === undefined ? {} : { cap: String(capUsd) }) }).expire(this.key, KEEP_SECONDS).exec()
  }

  async state(): Promise<BatchState> {
    const fields = await this.redis.hgetall(this.key)
    return {
      ...(fields.cap === undefined ? {} : { capUsd: Number(fields.cap) }),
      spentUsd: Number(fields.spent ?? 0),
      ...(fields.stop === "interrupt" || fields.stop === "budget" ? { stop: fields.stop } : {}),
    }
  }

  /** Adds to what the batch spent; once that reaches the cap, the batch is told to stop. */
  async spend(usd: number): Promise<void> {
    const spent = Number(await this.redis.hincrbyfloat(this.key, "spent", usd))
    const cap = await this.redis.hget(this.key, "cap")
    if (cap !== null && spent >= Number(cap)) await this.redis.hsetnx(this.key, "stop", "budget")
    await this.redis.expire(this.key, KEEP_SECONDS)
  }

  async stop(reason: StopReason): Promise<void> {
    await this.redis.hset(this.key, "stop", reason)
  }
}
