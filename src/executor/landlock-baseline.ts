/**
 * The protected paths' state shared by the Landlock sandboxes of one workspace that run at the
 * same time (two `clanka run`, an editor's ACP sessions). Each puts back, after every script, the
 * state it took when it started (landlock-protect.ts); one that started while another's script had
 * changed a protected path took that change for the state, and put it back after the first had
 * undone it: a `.git/config` with `core.fsmonitor` outlived both. So the first to start records
 * what it took here, in clanka's state directory (out of every script's reach: it is a
 * credential store), and one that starts while a sandbox that recorded it still runs takes the
 * recorded state instead of the one on disk. Removed when the last of them ends; one left by a
 * clanka killed outright names no live process, and is taken afresh.
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, writeSync } from "node:fs"
import { join } from "node:path"
import { stateDirectory } from "../util/home.ts"

interface Holder {
  pid: number
  /** The process's start time (/proc/PID/stat), so that a pid used again is not taken for it. */
  start: string
}

interface Record<T> {
  holders: Holder[]
  state: T
}

/** The state recorded for `roots` by a sandbox still running, else `take()`'s, recorded; this process holds it until `release`. */
export function sharedBaseline<T>(roots: readonly string[], take: () => T): T {
  const file = recordFile(roots)
  if (!file) return take()
  return locked(file, () => {
    const record = read<T>(file)
    const holders = (record?.holders ?? []).filter(alive)
    const state = record && holders.length > 0 ? record.state : take()
    write(file, { holders: [...holders, self()], state })
    return state
  }) ?? take()
}

/** This process no longer holds the state recorded for `roots`; the last holder removes it. */
export function releaseBaseline(roots: readonly string[]): void {
  const file = recordFile(roots)
  if (!file) return
  locked(file, () => {
    const record = read<unknown>(file)
    if (!record) return
    const me = self()
    let dropped = false
    const holders = record.holders.filter((holder) => {
      if (!dropped && holder.pid === me.pid && holder.start === me.start) return !(dropped = true)
      return alive(holder)
    })
    if (holders.length === 0) rmSync(file, { force: true })
    else write(file, { ...record, holders })
  })
}

function recordFile(roots: readonly string[]): string | undefined {
  const dir = join(stateDirectory(), "protected")
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
  } catch {
    return undefined
  }
  const hash = new Bun.CryptoHasher("sha256").update(JSON.stringify(roots)).digest("hex").slice(0, 24)
  return join(dir, `${hash}.json`)
}

/** `run` while holding the record's lock (a directory beside it; one older than 10 s is stale); undefined when it cannot be had. */
function locked<R>(file: string, run: () => R): R | undefined {
  const lock = `${file}.lock`
  for (let tries = 0; tries < 200; tries++) {
    try {
      mkdirSync(lock, { mode: 0o700 })
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > 10_000) rmSync(lock, { recursive: true, force: true })
      else Bun.sleepSync(10)
      continue
    }
    try {
      return run()
    } finally {
      try {
        rmdirSync(lock)
      } catch {
        // removed as stale meanwhile
      }
    }
  }
  return undefined
}

function read<T>(file: string): Record<T> | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8"), revive) as Record<T>
  } catch {
    return undefined
  }
}

function write(file: string, record: Record<unknown>): void {
  const temporary = `${file}.${process.pid}`
  const fd = openSync(temporary, "w", 0o600)
  try {
    writeSync(fd, JSON.stringify(record, replace))
  } finally {
    closeSync(fd)
  }
  renameSync(temporary, file)
}

// Buffers and Maps (the protected paths' entries) survive the round trip.
function replace(this: unknown, _key: string, value: unknown): unknown {
  if (value instanceof Map) return { $map: [...value.entries()] }
  if (value && typeof value === "object" && (value as { type?: string }).type === "Buffer" && Array.isArray((value as { data?: unknown }).data)) {
    return { $buffer: Buffer.from((value as { data: number[] }).data).toString("base64") }
  }
  return value
}

function revive(_key: string, value: unknown): unknown {
  if (value && typeof value === "object") {
    if ("$map" in value) return new Map((value as { $map: [string, unknown][] }).$map)
    if ("$buffer" in value) return Buffer.from((value as { $buffer: string }).$buffer, "base64")
  }
  return value
}

function self(): Holder {
  return { pid: process.pid, start: startTime(process.pid) ?? "" }
}

function alive(holder: Holder): boolean {
  return startTime(holder.pid) === holder.start
}

function startTime(pid: number): string | undefined {
  try {
    // The fields after the command's closing parenthesis; the start time is the 22nd field.
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ").at(-1)!.split(" ")[19]
  } catch {
    return undefined
  }
}
