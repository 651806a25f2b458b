/**
 * What the agent's own probes found, remembered between runs in the state directory
 * (`probes.json`, 0600, beside the sessions; no script can write there): each answer is kept under
 * a key naming what it depends on, so a changed program (for bubblewrap also a reboot) is probed
 * again. The agent's early first request needs these facts before its executor has answered;
 * without them each run started a bwrap and a bash of its own beside the executor's start.
 */
import { lstatSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { stateDirectory } from "../util/home.ts"
import { SHELL_VERSION } from "./shell-version.ts"

type Probes = Record<string, { key: string; value: string }>

const FILE = "probes.json"
/** Larger than this it is not ours: never read (nor a FIFO or a directory someone put there). */
const MAX_BYTES = 64 * 1024

/** The file as this process read or wrote it last: a run asks it several questions at its start. */
let known: { path: string; probes: Probes } | undefined

function readAll(): Probes {
  const path = join(stateDirectory(), FILE)
  if (known?.path !== path) known = { path, probes: readFile(path) }
  return known.probes
}

function readFile(path: string): Probes {
  try {
    const info = lstatSync(path)
    if (!info.isFile() || info.size > MAX_BYTES) return {}
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"))
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Probes) : {}
  } catch {
    return {}
  }
}

/** The answer remembered for `name` under exactly `key`, if any. */
export function remembered(name: string, key: string): string | undefined {
  const entry = readAll()[name]
  return entry?.key === key && typeof entry.value === "string" ? entry.value : undefined
}

/** Remembers `value` for `name` under `key`; a state directory it cannot write costs only the next run a probe. */
export function remember(name: string, key: string, value: string): void {
  const all = readAll()
  if (all[name]?.key === key && all[name]?.value === value) return
  write({ ...all, [name]: { key, value } })
}

/** Forgets what was remembered for `name`. */
export function forget(name: string): void {
  const { [name]: gone, ...rest } = readAll()
  if (gone !== undefined) write(rest)
}

function write(all: Probes): void {
  const directory = stateDirectory()
  const path = join(directory, FILE)
  known = { path, probes: all }
  const temporary = join(directory, `.${FILE}.${process.pid}.tmp`)
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 })
    writeFileSync(temporary, JSON.stringify(all) + "\n", { mode: 0o600 })
    renameSync(temporary, path)
  } catch {
    // not remembered
  }
}

/** What identifies the program `command` runs: its path on PATH, and what a new version changes. */
export function programKey(command: string, PATH = process.env.PATH ?? ""): string | undefined {
  const path = Bun.which(command, { PATH })
  if (path === null) return undefined
  try {
    const info = statSync(path)
    return `${path}:${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}`
  } catch {
    return undefined
  }
}

/** This boot of the machine (Linux), undefined where it cannot be told. */
export function bootId(): string | undefined {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || undefined
  } catch {
    return undefined
  }
}

/** The shell's version remembered for the bash on PATH now, if any. */
export function rememberedShell(): string | undefined {
  const key = programKey("bash")
  const known = key === undefined ? undefined : remembered("bash", key)
  return known !== undefined && SHELL_VERSION.test(known) ? known : undefined
}

/** Remembers what a run of bash said its version is (only a version, for the bash on PATH now). */
export function rememberShell(version: string | undefined): void {
  const key = programKey("bash")
  if (key !== undefined && version !== undefined && SHELL_VERSION.test(version)) remember("bash", key, version)
}
