/**
 * One limit on model requests for every worker of a queue: at most N in any window of 60 s. Each
 * request first takes a slot in a Redis sorted set of the window's requests (a Lua script, so
 * that taking is atomic across machines, timed by the Redis server's clock); when the window is
 * full it waits until its oldest request leaves it.
 */
import { randomUUID } from "node:crypto"
import type { Redis } from "./redis.ts"

// KEYS[1] the window's sorted set; ARGV: limit, window in ms, a unique member. Returns 0 when a
// slot was taken, else the milliseconds until one frees.
const TAKE = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms - window)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], ms, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - ms)
`

export const RATE_WINDOW_MS = 60_000

export class RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly limit: number,
    private readonly windowMs = RATE_WINDOW_MS,
  ) {}

  /** Resolves once this request may go; rejects when `signal` aborts first. */
  async acquire(signal?: AbortSignal): Promise<void> {
    const member = randomUUID()
    for (;;) {
      signal?.throwIfAborted()
      const wait = Number(await this.redis.eval(TAKE, 1, this.key, this.limit, this.windowMs, member))
      if (wait === 0) return
      // Several waiters wake apart, not all at once for the same freed slot.
      await sleep(wait + Math.floor(Math.random() * 50), signal)
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener("abort", done)
      resolve()
    }
    signal?.addEventListener("abort", done, { once: true })
  })
}
