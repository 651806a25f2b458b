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
  probe.on("error", () => {})
  try {
    await probe.connect()
    await probe.ping()
  } catch (error) {
    probe.disconnect()
    throw new ClankaError(`cannot reach the queue's Redis at ${place.shown}: ${errorMessage(error)}`)
  }
  probe.disconnect()
  // Later drops are retried (BullMQ's connections do the same).
  const client = new Redis({ ...place.connection, maxRetriesPerRequest: null })
  client.on("error", () => {})
  return client
}
