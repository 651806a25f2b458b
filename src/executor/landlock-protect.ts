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
import { closeSync, lstatSync, readdirSync } from "node:fs"
import { basename, dirname, join, relative, sep } from "node:path"
import type { ExecuteOptions, Executor } from "../contract.ts"
import { GIT_DIR_FILES, protectedPaths } from "../tools/protected-paths.ts"
import { releaseBaseline, sharedBaseline } from "./landlock-baseline.ts"
import { populatedGitlinks, quarantineNewGitlinks } from "./nested-repos.ts"
import { at, makeDirectoryAt, openBelow, openDirectory, readFileAt, readLinkAt, removeAt, symlinkAt, writeFileAt } from "./pinned-fs.ts"

type Entry = { kind: "file"; content: Buffer; mode: number } | { kind: "dir"; mode: number } | { kind: "link"; target: string }

/** At most this much of the protected paths' contents is kept (withinBudget). */
const MAX_BYTES = 64 * 1024 * 1024
/** The mode of a file entry over MAX_BYTES (its content not read). */
const LARGE = -2

/** A protected path as its writable root and the parts below it (the last one its own name). */
interface Place {
  root: string
  path: string
  parents: string[]
  name: string
}

function placeOf(roots: readonly string[], path: string): Place | undefined {
  const root = roots.find((dir) => path.startsWith(dir + sep))
  if (!root) return undefined
  const parts = relative(root, path).split(sep)
  return { root, path, parents: parts.slice(0, -1), name: parts.at(-1)! }
}

export class ProtectedState {
  private constructor(
    /** Each protected path that existed, and what was there. */
    private readonly paths: (Place & { entries: Map<string, Entry> })[],
    /** The git directories' protected files that were not there: one that appears is removed. */
    private readonly absent: Place[],
    /** Per writable root in a repository, its populated gitlinks (nested-repos.ts). */
    private readonly gitlinks: { root: string; links: Set<string> }[],
    /** The roots whose state is shared with the other sandboxes there (landlock-baseline.ts). */
    private readonly shared?: readonly string[],
  ) {}

  /**
   * The state now of the protected paths in the workspace and the writable roots (real paths), or
   * the one a sandbox still running there took (Landlock: landlock-baseline.ts). `existing: false`
   * (bubblewrap, which binds those read-only): only the absent ones are kept.
   */
  static take(workspace: string, writable: readonly string[], options: { existing?: boolean } = {}): ProtectedState {
    const roots = [workspace, ...writable]
    const taken = () => takeNow(workspace, writable, roots, options)
    const { paths, absent } = options.existing === false ? taken() : sharedBaseline(roots, taken)
    const gitlinks = roots.flatMap((root) => {
      const links = populatedGitlinks(root)
      return links ? [{ root, links }] : []
    })
    return new ProtectedState(paths, absent, gitlinks, options.existing === false ? undefined : roots)
  }

  /** When the sandbox has ended: the repositories scripts added to the index are quarantined; the lines saying so. */
  finish(): string[] {
    if (this.shared) releaseBaseline(this.shared)
    return this.gitlinks.flatMap(({ root, links }) => quarantineNewGitlinks(root, links))
  }

  /**
   * Puts back what changed; returns the protected paths it put back (empty: nothing changed).
   * Scripts may be running meanwhile (a server started in the background): every step is taken
   * relative to directories held open, never through a symlink one of them could swap in.
   */
  restore(): string[] {
    const changed: string[] = []
    for (const { root, path, parents, name, entries } of this.paths) {
      // The path's parents must be directories again before anything is written through them.
      const dir = openBelow(root, parents, true)
      if (dir === undefined) {
        changed.push(path)
        continue
      }
      try {
        if (same(entries, read(dir, name))) continue
        changed.push(path)
        removeAt(dir, name)
        putBack(dir, name, entries)
      } finally {
        closeSync(dir)
      }
    }
    // After the rest: a parent put back as a directory is one again.
    for (const { root, path, parents, name } of this.absent) {
      const dir = openBelow(root, parents)
      if (dir === undefined) continue
      try {
        if (!lstatSync(at(dir, name), { throwIfNoEntry: false })) continue
        removeAt(dir, name)
        changed.push(path)
      } finally {
        closeSync(dir)
      }
    }
    return changed
  }
}

/** The protected paths' state on disk now: those that exist (within the bound), and the git directories' files that do not. */
function takeNow(workspace: string, writable: readonly string[], roots: string[], options: { existing?: boolean }): { paths: (Place & { entries: Map<string, Entry> })[]; absent: Place[] } {
  const places = protectedPaths(workspace, writable).flatMap((path) => placeOf(roots, path) ?? [])
  const found: (Place & { entries: Map<string, Entry>; bytes: number })[] = []
  const absent: Place[] = []
  for (const place of places) {
    const dir = openBelow(place.root, place.parents)
    // In a git directory that exists (a `.git` made by a script, `git init`, is left alone).
    if (dir === undefined) continue
    try {
      // Only those that exist, as bubblewrap binds only those: a script may make a clanka.json.
      const entries = options.existing === false ? undefined : read(dir, place.name)
      if (entries) {
        let bytes = 0
        for (const entry of entries.values()) if (entry.kind === "file") bytes += entry.mode === LARGE ? Infinity : entry.content.length
        found.push({ ...place, entries, bytes })
      } else if (GIT_DIR_FILES.includes(place.name) && !lstatSync(at(dir, place.name), { throwIfNoEntry: false })) absent.push(place)
    } finally {
      closeSync(dir)
    }
  }
  return { paths: withinBudget(found).map(({ bytes: _, ...path }) => path), absent }
}

/**
 * The paths kept, smallest first while they fit in MAX_BYTES: one too large is not kept, the rest
 * are (a large `.clanka/`, which a script of an earlier sandbox may have made, must not leave
 * git's hooks and config unkept).
 */
function withinBudget<T extends { bytes: number }>(found: T[]): T[] {
  let total = 0
  const kept = new Set<T>()
  for (const path of [...found].sort((a, b) => a.bytes - b.bytes)) {
    if (total + path.bytes > MAX_BYTES) break
    total += path.bytes
    kept.add(path)
  }
  return found.filter((path) => kept.has(path))
}

/** Makes `name` in `dir` what `entries` say (parents before children), each below its own directory held open. */
function putBack(dir: number, name: string, entries: Map<string, Entry>): void {
  const opened = new Map<string, number>()
  try {
    for (const [below, entry] of entries) {
      const parent = below === "" ? dir : opened.get(dirname(below) === "." ? "" : dirname(below))
      if (parent === undefined) continue
      const leaf = below === "" ? name : basename(below)
      if (entry.kind === "dir") {
        const made = makeDirectoryAt(parent, leaf, entry.mode)
        if (made !== undefined) opened.set(below, made)
      } else if (entry.kind === "link") symlinkAt(parent, leaf, entry.target)
      else if (entry.mode >= 0) writeFileAt(parent, leaf, entry.content, entry.mode)
    }
  } finally {
    for (const fd of opened.values()) closeSync(fd)
  }
}

/**
 * What is at `name` in `dir` (never following a symlink, never waiting on a FIFO): entries by
 * their path below it ("" for itself, parents before children), or undefined when nothing is there.
 */
function read(dir: number, name: string): Map<string, Entry> | undefined {
  const entries = new Map<string, Entry>()
  const visit = (parent: number, leaf: string, below: string) => {
    const info = lstatSync(at(parent, leaf), { throwIfNoEntry: false })
    if (!info) return
    if (info.isSymbolicLink()) entries.set(below, { kind: "link", target: readLinkAt(parent, leaf) ?? "" })
    else if (info.isDirectory()) {
      const child = openDirectory(at(parent, leaf))
      // Swapped for something else since: not what was kept, whatever it is.
      if (child === undefined) return void entries.set(below, { kind: "file", content: Buffer.alloc(0), mode: -1 })
      entries.set(below, { kind: "dir", mode: info.mode & 0o7777 })
      try {
        for (const entry of readdirSync(at(child, "")).sort()) visit(child, entry, below === "" ? entry : join(below, entry))
      } finally {
        closeSync(child)
      }
    } else {
      // A FIFO, socket or device: no state of its own, removed on restore. Too large: nothing is kept (take).
      const file = info.isFile() ? readFileAt(parent, leaf, MAX_BYTES) : undefined
      if (file === "large") entries.set(below, { kind: "file", content: Buffer.alloc(0), mode: LARGE })
      else entries.set(below, file ? { kind: "file", ...file } : { kind: "file", content: Buffer.alloc(0), mode: -1 })
    }
  }
  visit(dir, name, "")
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
    for (const line of state.finish()) onWarning?.(line)
  }
  return executor
}
