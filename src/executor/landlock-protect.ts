/**
 * The protected paths (git hooks and config, clanka.json, .mcp.json, .clanka/: protected-paths.ts)
 * under Landlock. Landlock rules only add rights beneath a directory, so a workspace that can be
 * written in can be written in everywhere below it, these paths too: the write tools still refuse
 * them, but bash does not. What this adds: their state is taken before the sandbox starts, and
 * put back, outside the sandbox, after every script and when the sandbox ends. A script can still
 * change one while it runs (and a git command run outside the sandbox in that moment would obey
 * it); nothing it changed there outlives the script.
 *
 * Under both backends: a git directory's hooks, config, config.worktree or commondir that did not
 * exist when the sandbox started cannot be bound read-only, so a script can create one (a
 * `commondir` naming a directory of its own makes git obey that directory's config: core.fsmonitor
 * runs a command at the next `git status` outside the sandbox). One made by a script is removed
 * after every script and when the sandbox ends, as the write tools refuse to make one.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { basename, dirname, join, relative, sep } from "node:path"
import type { ExecuteOptions, Executor } from "../contract.ts"
import { GIT_DIR_FILES, protectedPaths } from "../tools/protected-paths.ts"

type Entry = { kind: "file"; content: Buffer; mode: number } | { kind: "dir"; mode: number } | { kind: "link"; target: string }

/** More than this in the protected paths (a large .clanka/) and they are not kept. */
const MAX_BYTES = 64 * 1024 * 1024

export class ProtectedState {
  private constructor(
    /** Each protected path with its writable root, and what was there (undefined: nothing). */
    private readonly paths: { root: string; path: string; entries: Map<string, Entry> }[],
    /** The git directories' protected files that were not there: one that appears is removed. */
    private readonly absent: string[],
  ) {}

  /**
   * The state now of the protected paths in the workspace and the writable roots (real paths).
   * `existing: false` (bubblewrap, which binds those read-only): only the absent ones are kept.
   */
  static take(workspace: string, writable: readonly string[], options: { existing?: boolean } = {}): ProtectedState {
    const roots = [workspace, ...writable]
    let bytes = 0
    const all = protectedPaths(workspace, writable)
    // Only those that exist, as bubblewrap binds only those: a script may make a clanka.json.
    const paths = options.existing === false ? [] : all.flatMap((path) => {
      const root = roots.find((dir) => path.startsWith(dir + sep))
      const entries = root ? read(path) : undefined
      if (!root || !entries) return []
      for (const entry of entries.values()) if (entry.kind === "file") bytes += entry.content.length
      return [{ root, path, entries }]
    })
    // In a git directory that exists (a `.git` made by a script, `git init`, is left alone).
    const absent = all.filter((path) => GIT_DIR_FILES.includes(basename(path)) && !lstatSync(path, { throwIfNoEntry: false }) && isDirectoryChain(dirname(path)))
    return new ProtectedState(bytes > MAX_BYTES ? [] : paths, absent)
  }

  /** Puts back what changed; returns the protected paths it put back (empty: nothing changed). */
  restore(): string[] {
    const changed: string[] = []
    for (const { root, path, entries } of this.paths) {
      const now = read(path, true)
      if (same(entries, now)) continue
      changed.push(path)
      // The path's parents must be directories again before anything is written through them.
      if (!directoriesUpTo(root, dirname(path))) continue
      rmSync(path, { recursive: true, force: true })
      for (const [name, entry] of entries) {
        const target = name === "" ? path : join(path, name)
        if (entry.kind === "dir") mkdirSync(target, { mode: 0o700 })
        else if (entry.kind === "link") symlinkSync(entry.target, target)
        else if (entry.mode >= 0) writeFileSync(target, entry.content, { mode: 0o600 })
        if (entry.kind !== "link" && entry.mode >= 0) chmodSync(target, entry.mode)
      }
    }
    // After the rest: a parent put back as a directory is one again.
    for (const path of this.absent) {
      // Never through a parent a script turned into a symlink (the removal would land elsewhere).
      if (!lstatSync(path, { throwIfNoEntry: false }) || !isDirectoryChain(dirname(path))) continue
      rmSync(path, { recursive: true, force: true })
      changed.push(path)
    }
    return changed
  }
}

/**
 * What is at `path` (never following a symlink): entries by their path below it ("" for itself,
 * parents before children), or undefined when nothing is there. A parent that is no longer a
 * directory counts as nothing there (`checkParents`).
 */
function read(path: string, checkParents = false): Map<string, Entry> | undefined {
  if (checkParents && !isDirectoryChain(dirname(path))) return undefined
  const entries = new Map<string, Entry>()
  const visit = (at: string) => {
    const info = lstatSync(at, { throwIfNoEntry: false })
    if (!info) return
    const name = relative(path, at)
    if (info.isSymbolicLink()) entries.set(name, { kind: "link", target: readlinkSync(at) })
    else if (info.isDirectory()) {
      entries.set(name, { kind: "dir", mode: info.mode & 0o7777 })
      for (const child of readdirSync(at).sort()) visit(join(at, child))
    } else if (info.isFile()) entries.set(name, { kind: "file", content: readFileSync(at), mode: info.mode & 0o7777 })
    // A FIFO, socket or device in a protected path: no state of its own to keep, it is removed on restore.
    else entries.set(name, { kind: "file", content: Buffer.alloc(0), mode: -1 })
  }
  visit(path)
  return entries.size > 0 ? entries : undefined
}

function same(a: Map<string, Entry>, b: Map<string, Entry> | undefined): boolean {
  if (!b) return false
  if (a.size !== b.size) return false
  for (const [name, entry] of a) {
    const other = b.get(name)
    if (!other || other.kind !== entry.kind) return false
    if (entry.kind === "link" && entry.target !== (other as typeof entry).target) return false
    if (entry.kind !== "link" && entry.mode !== (other as typeof entry).mode) return false
    if (entry.kind === "file" && !entry.content.equals((other as typeof entry).content)) return false
  }
  return true
}

function isDirectoryChain(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    const info = lstatSync(at, { throwIfNoEntry: false })
    if (!info?.isDirectory()) return false
    if (at === dirname(at)) return true
  }
}

/**
 * Makes every directory from `root` down to `dir` a real directory: a symlink there is removed (it
 * would lead the restore elsewhere), a file is renamed aside, a missing one is made.
 */
function directoriesUpTo(root: string, dir: string): boolean {
  if (!lstatSync(root, { throwIfNoEntry: false })?.isDirectory()) return false
  let at = root
  for (const part of relative(root, dir).split(sep).filter(Boolean)) {
    at = join(at, part)
    const info = lstatSync(at, { throwIfNoEntry: false })
    if (info?.isDirectory()) continue
    if (info?.isSymbolicLink()) rmSync(at)
    else if (info) renameSync(at, `${at}.clanka-displaced-${Date.now()}`)
    mkdirSync(at)
  }
  return true
}

/**
 * `executor` (a Landlock sandbox's, workspace-write) with the protected paths put back after each
 * script and tool call and when it closes; the script's output then says so, as does `onWarning`.
 */
export function keepProtectedPaths(executor: Executor, state: ProtectedState, onWarning?: (line: string) => void): Executor {
  const check = (): string | undefined => {
    const changed = state.restore()
    if (changed.length === 0) return undefined
    const line = `[sandbox: a script changed ${changed.join(", ")}, which stay read-only; put back as they were]`
    onWarning?.(line.slice(1, -1))
    return line
  }
  const execute = executor.execute.bind(executor)
  executor.execute = (options: ExecuteOptions) =>
    (async function* () {
      let note: string | undefined
      try {
        yield* execute(options)
      } finally {
        note = check()
      }
      if (note) yield `${note}\n`
    })()
  const executeUnsafe = executor.executeUnsafe.bind(executor)
  executor.executeUnsafe = async (...args: Parameters<Executor["executeUnsafe"]>) => {
    try {
      return await executeUnsafe(...args)
    } finally {
      check()
    }
  }
  const close = executor.close.bind(executor)
  executor.close = async () => {
    await close()
    check()
  }
  return executor
}
