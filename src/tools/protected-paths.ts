/**
 * The paths inside a writable root that stay read-only to scripts: what other programs later run
 * or obey outside the sandbox. Git runs `.git/hooks/*` and what `.git/config` names (fsmonitor,
 * hooksPath, aliases, …); clanka obeys `clanka.json`, `.mcp.json` and `.clanka/` at the next start.
 * Both layers use this list: the write tools (write-policy.ts) and the OS sandbox (os-sandbox.ts,
 * which binds each existing one read-only). Paths are real paths (symlinks resolved).
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs"
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path"
import { homeDirectory } from "../util/home.ts"

/** The project files clanka itself reads, at the root of each writable root. */
const CLANKA_FILES = ["clanka.json", ".mcp.json", ".clanka"]

/** In a git directory: what git runs or obeys, and what redirects it to another git directory. */
export const GIT_DIR_FILES = ["hooks", "config", "config.worktree", "commondir"]

/** Nesting of `.git/modules` walked for submodules' git directories (their names may hold slashes). */
const MODULE_DEPTH = 6

/**
 * The protected paths in the writable roots (`workspace` and the --writable dirs), existing or
 * not (a write tool must not create one either), less those the user opened: a --writable dir
 * that is the path itself, or a parent of it inside a writable root (`--writable .git/hooks`,
 * `--writable .git`; not `--writable ..`, nor the workspace itself).
 */
export function protectedPaths(workspace: string, writable: readonly string[]): string[] {
  const opened = [...new Set(writable.map(located))]
  const roots = [...new Set([located(workspace), ...opened])]
  const paths = new Set<string>()
  for (const [owner, path] of roots.flatMap((root) => rootPaths(root).map((path) => [root, path] as const))) {
    // The root whose top level holds it (its .git may name a git dir in another writable root).
    const holders = inside(owner, path) ? [owner] : roots.filter((root) => inside(root, path))
    if (holders.length === 0) continue
    if (opened.some((dir) => within(dir, path) && holders.some((root) => inside(root, dir)))) continue
    paths.add(path)
  }
  return [...paths]
}

/**
 * bubblewrap arguments that keep the existing protected paths read-only, to follow the writable
 * binds. Each directory between a root and a protected path is first bound onto itself writable:
 * a mount point cannot be renamed, so `mv .git .git2 && mkdir .git` cannot swap a new one in.
 */
export function protectedBinds(workspace: string, writable: readonly string[]): string[] {
  const existing = protectedPaths(workspace, writable).filter((path) => exists(path))
  const real = [located(workspace), ...writable.map(located)]
  const pins = new Set<string>()
  for (const path of existing) {
    for (let dir = dirname(path); real.some((root) => inside(root, dir)); dir = dirname(dir)) pins.add(dir)
  }
  const byDepth = (a: string, b: string) => a.split(sep).length - b.split(sep).length
  return [
    ...[...pins].sort(byDepth).flatMap((dir) => ["--bind", dir, dir]),
    ...existing.sort(byDepth).flatMap((path) => ["--ro-bind", path, path]),
  ]
}

/** The protected path that `path` (real) is in, or undefined. */
export function protectedPathOf(path: string, protectedList: readonly string[]): string | undefined {
  return protectedList.find((entry) => within(entry, path))
}

/** The protected path below `path` (real) when there is one: removing or renaming `path` moves it. */
export function protectedPathBelow(path: string, protectedList: readonly string[]): string | undefined {
  return protectedList.find((entry) => inside(path, entry))
}

/** One root's candidates: clanka's files and the git directories it leads to. */
function rootPaths(root: string): string[] {
  const paths = CLANKA_FILES.map((name) => join(root, name))
  const dotGit = join(root, ".git")
  const info = lstatOf(dotGit)
  let gitDir: string | undefined
  if (info?.isFile()) {
    // A worktree or submodule checkout: `.git` names its git directory; rewriting it redirects git.
    paths.push(dotGit)
    gitDir = gitDirFromFile(dotGit)
    if (gitDir) paths.push(...gitDirPaths(gitDir, MODULE_DEPTH))
  } else {
    // A directory, a symlink to one, or nothing yet (a write tool must not create .git/hooks).
    gitDir = located(dotGit)
    paths.push(...gitDirPaths(gitDir, MODULE_DEPTH))
  }
  if (gitDir) paths.push(...hooksPathDirs(root, gitDir))
  return paths.map(located)
}

/**
 * The hooks directory `core.hooksPath` names (in the git directory's config, or its common
 * directory's), relative to the work tree: git runs its hooks as it runs `.git/hooks`'. Husky's
 * `.husky/_` brings `.husky` along: its wrappers run the scripts kept there. Only one inside a
 * writable root counts (protectedPaths), never the root itself.
 */
function hooksPathDirs(root: string, gitDir: string): string[] {
  const common = readText(join(gitDir, "commondir"))
  let value: string | undefined
  for (const dir of [common ? resolve(gitDir, common) : undefined, gitDir]) {
    const text = dir === undefined ? undefined : readText(join(dir, "config"))
    let section = ""
    for (const raw of text?.split("\n") ?? []) {
      const line = raw.trim()
      const header = /^\[\s*([^\]\s"]+)/.exec(line)
      if (header) section = header[1]!.toLowerCase()
      const entry = section === "core" ? /^hookspath\s*=\s*(.*)$/i.exec(line) : null
      if (entry) value = /^"(.*)"/.exec(entry[1]!)?.[1] ?? entry[1]!.replace(/\s+[#;].*$/, "").trim()
    }
  }
  if (!value) return []
  const dir = value.startsWith("~/") ? join(homeDirectory(), value.slice(2)) : resolve(root, value)
  return basename(dir) === "_" ? [dir, dirname(dir)] : [dir]
}

/** What is protected in one git directory: its files, its common dir's, its submodules'. */
function gitDirPaths(gitDir: string, depth: number): string[] {
  const paths = GIT_DIR_FILES.map((name) => join(gitDir, name))
  const common = readText(join(gitDir, "commondir"))
  if (common) {
    const commonDir = resolve(gitDir, common)
    paths.push(join(commonDir, "hooks"), join(commonDir, "config"))
  }
  if (depth > 0) for (const moduleDir of moduleGitDirs(join(gitDir, "modules"), depth)) paths.push(...gitDirPaths(moduleDir, depth - 1), ...checkoutOf(moduleDir))
  return paths
}

/** The git directories under `.git/modules` (a directory with a HEAD is one; else its name goes on). */
function moduleGitDirs(dir: string, depth: number): string[] {
  if (depth <= 0) return []
  let names: string[]
  try {
    names = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name)
  } catch {
    return []
  }
  return names.flatMap((name) => {
    const path = join(dir, name)
    return existsSync(join(path, "HEAD")) ? [path] : moduleGitDirs(path, depth - 1)
  })
}

/** A submodule's checkout `.git` file (named by `core.worktree` in its git directory's config). */
function checkoutOf(moduleDir: string): string[] {
  const worktree = readText(join(moduleDir, "config"))?.match(/^\s*worktree\s*=\s*(.+?)\s*$/m)?.[1]
  return worktree ? [join(resolve(moduleDir, worktree), ".git")] : []
}

/** The git directory a `.git` file names (`gitdir: PATH`, relative to the file's directory). */
function gitDirFromFile(file: string): string | undefined {
  const target = readText(file)?.match(/^gitdir:\s*(.+)$/)?.[1]?.trim()
  return target ? located(isAbsolute(target) ? target : resolve(dirname(file), target)) : undefined
}

/** A small regular file's text (never a FIFO a script left there to hang the next start). */
function readText(path: string): string | undefined {
  try {
    const info = statSync(path)
    if (!info.isFile() || info.size > 1 << 20) return undefined
    return readFileSync(path, "utf8").trim() || undefined
  } catch {
    return undefined
  }
}

function lstatOf(path: string) {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

function exists(path: string): boolean {
  return lstatOf(path) !== undefined
}

/** The real path, or for a path that does not exist yet its nearest real ancestor's with the rest. */
function located(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    const parent = dirname(path)
    return parent === path ? path : join(located(parent), basename(path))
  }
}

/** True when `path` is strictly below `root`. */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
}

/** True when `path` is `root` or below it. */
function within(root: string, path: string): boolean {
  return root === path || inside(root, path)
}
