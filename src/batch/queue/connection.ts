/**
 * `--queue redis://[USER:PASSWORD@]HOST[:PORT]/NAME` (`rediss://` for TLS): the Redis server and
 * the name of the BullMQ queue on it. clanka's own keys beside the queue's start `clanka:NAME:`.
 */
import { UsageError } from "../../errors.ts"

/** What BullMQ's connections and clanka's own are opened with. */
export interface RedisPlace {
  host: string
  port: number
  username?: string
  password?: string
  tls?: { servername: string }
}

export interface QueuePlace {
  /** The BullMQ queue name. */
  name: string
  /** For BullMQ's connections and clanka's own. */
  connection: RedisPlace
  /** The URL without its password, for messages. */
  shown: string
}

export function parseQueueUrl(value: string): QueuePlace {
  // The message goes to logs: a password in the URL (redis://:PASSWORD@HOST) is left out, up to
  // the last @ (a password written unencoded may hold @ or /; a host and a queue name cannot).
  const written = value.replace(/^([^/]*\/\/[^/@:]*):.*@/, "$1:…@")
  const refuse = (problem: string) => new UsageError(`--queue ${JSON.stringify(written)}: ${problem}; give redis://HOST:PORT/NAME`)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw refuse("not a URL")
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") throw refuse("not a redis:// or rediss:// URL")
  if (!url.hostname) throw refuse("no host")
  const name = decodeURIComponent(url.pathname.replace(/^\/+/, ""))
  if (!name) throw refuse("no queue name after the host")
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) throw refuse(`the queue name "${name}" may hold only letters, digits, _ . and -`)
  const port = url.port ? Number(url.port) : 6379
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1")
  const connection: RedisPlace = {
    host,
    port,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.protocol === "rediss:" ? { tls: { servername: host } } : {}),
  }
  const shown = `${url.protocol}//${url.username ? `${url.username}@` : ""}${url.host}/${name}`
  return { name, connection, shown }
}

/** A key of clanka's beside the queue. */
export function clankaKey(place: QueuePlace, ...parts: string[]): string {
  return ["clanka", place.name, ...parts].join(":")
}
