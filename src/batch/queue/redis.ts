/**
 * clanka's own Redis connection beside BullMQ's, and the check at start-up that the server
 * answers: an unreachable or refusing server is one line at once, not retries for ever.
 */
import { Redis } from "ioredis"
import { ClankaError } from "../../errors.ts"
import { errorMessage } from "../../util/error-message.ts"
import type { QueuePlace } from "./connection.ts"

export type { Redis }

export async function openRedis(place: QueuePlace): Promise<Redis> {
  const probe = new Redis({ ...place.connection, lazyConnect: true, connectTimeout: 5000, maxRetriesPerRequest: 0, retryStrategy: () => null })
  // What went wrong (refused, a wrong password): connect() itself says only "Connection is closed".
  let cause: unknown
  probe.on("error", (error) => (cause ??= error))
  try {
    await probe.connect()
    await probe.ping()
  } catch (error) {
    probe.disconnect()
    throw new ClankaError(`cannot reach the queue's Redis at ${place.shown}: ${errorMessage(cause ?? error)}`)
  }
  probe.disconnect()
  // Later drops are retried (BullMQ's connections do the same).
  const client = new Redis({ ...place.connection, maxRetriesPerRequest: null })
  client.on("error", () => {})
  return client
}

/** A logger of connection errors that says each one once until another one comes (a Redis that is down is retried every second or so). */
export function connectionErrors(log: (line: string) => void): (error: Error) => void {
  let last = ""
  return (error) => {
    const line = `queue: ${errorMessage(error)}`
    if (line !== last) log(line)
    last = line
  }
}

/**
 * Closes BullMQ objects, waiting at most `ms` for them to finish cleanly (their running jobs, their
 * connections' goodbyes). False when they did not: with Redis gone, BullMQ's close (and its
 * disconnect) never ends and its reconnecting keeps the process alive, so the command must exit.
 */
export async function closeWithin(ms: number, ...objects: { close(): Promise<void> }[]): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)))
  const closed = await Promise.race([Promise.allSettled(objects.map((object) => object.close())), late])
  clearTimeout(timer)
  return closed !== "late"
}

/** Exits once what was written to stdout and stderr has gone out. */
export async function exitNow(code: number): Promise<never> {
  await Promise.all([process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write("", () => resolve()))))
  process.exit(code)
}
