/**
 * Trusted projects. A project's `clanka.json` / `.mcp.json` may widen the sandbox and start
 * programs, so they are obeyed only once the user ran `clanka trust DIR`: that records DIR (its
 * real path) with the fingerprint of its config files (project-files.ts), and a file created,
 * changed or deleted since makes the project untrusted again. The records are the user's state:
 * `<state>/trust.json` (see stateDirectory), directory 0700, file 0600, replaced atomically.
 */
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import * as v from "valibot"
import { UsageError } from "../errors.ts"
import { stateDirectory, type Env } from "../session/store.ts"
import { fingerprint, readIfPresent, readProjectFiles, type ProjectFile } from "./project-files.ts"
import { trustKey } from "./trust-key.ts"

const RecordSchema = v.object({ sha256: v.string(), files: v.array(v.string()), trustedAt: v.string() })
const StoreSchema = v.object({ version: v.literal(1), projects: v.record(v.string(), RecordSchema) })
export type TrustRecord = v.InferOutput<typeof RecordSchema>

export function trustStorePath(env: Env = process.env): string {
  return join(stateDirectory(env), "trust.json")
}

/** The recorded projects by directory; none when the store does not exist yet. */
export function readTrustStore(env: Env = process.env): Record<string, TrustRecord> {
  const path = trustStorePath(env)
  const text = readIfPresent(path)
  if (text === undefined) return {}
  let json: unknown
  try {
    json = JSON.parse(text.toString("utf8"))
  } catch (error) {
    throw new UsageError(`${path}: not JSON: ${(error as Error).message}; fix or delete it (clanka trust records projects again)`)
  }
  const parsed = v.safeParse(StoreSchema, json)
  if (!parsed.success) throw new UsageError(`${path}: not a clanka trust store; fix or delete it (clanka trust records projects again)`)
  return parsed.output.projects
}

function writeTrustStore(projects: Record<string, TrustRecord>, env: Env): void {
  const path = trustStorePath(env)
  const directory = dirname(path)
  mkdirSync(directory, { recursive: true, mode: 0o700 })
  chmodSync(directory, 0o700)
  // A reader sees the old store or the new one, never half of one.
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`
  try {
    writeFileSync(temporary, JSON.stringify({ version: 1, projects }, null, 2) + "\n", { mode: 0o600, flag: "wx" })
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw new UsageError(`${path}: cannot write it: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}

/** Whether the user trusts `directory` with exactly these config files. */
export function isTrusted(directory: string, files: readonly ProjectFile[], env: Env = process.env): boolean {
  const record = readTrustStore(env)[trustKey(directory)]
  return record !== undefined && record.sha256 === fingerprint(files)
}

/** Records that the user trusts `directory`'s config files as they are now; the files that exist. */
export function trustProject(directory: string, env: Env = process.env): { directory: string; files: string[] } {
  const key = trustKey(directory)
  const files = readProjectFiles(directory)
  const present = files.filter((file) => file.content !== undefined).map((file) => file.path)
  const projects = readTrustStore(env)
  projects[key] = { sha256: fingerprint(files), files: present, trustedAt: new Date().toISOString() }
  writeTrustStore(projects, env)
  return { directory: key, files: present }
}

/** Forgets `directory`; false when it was not trusted. */
export function untrustProject(directory: string, env: Env = process.env): { directory: string; removed: boolean } {
  const projects = readTrustStore(env)
  // The real path, or the path as written (a directory deleted since it was trusted).
  const key = [trustKey(directory), resolve(directory)].find((candidate) => projects[candidate] !== undefined)
  if (key === undefined) return { directory: trustKey(directory), removed: false }
  delete projects[key]
  writeTrustStore(projects, env)
  return { directory: key, removed: true }
}

/** Every trusted directory, and whether its files are still the ones trusted. */
export function trustedProjects(env: Env = process.env): { directory: string; matches: boolean; record: TrustRecord }[] {
  return Object.entries(readTrustStore(env)).map(([directory, record]) => ({
    directory,
    matches: record.sha256 === fingerprint(readProjectFiles(directory)),
    record,
  }))
}
