// The directory walk shared by the built-in search and the glob tool. It selects files the way
// ripgrep does by default: .gitignore (also in parent directories up to the repository root),
// .git/info/exclude, .ignore and .rgignore; hidden entries and symlinks skipped; entries visited
// depth-first in byte order of their names, which is ripgrep's `--sort path` order.
import { existsSync, readdirSync, readFileSync, statSync, type Dirent } from "node:fs"
import path from "node:path"
import { CancelledError } from "../../errors.ts"
import { matchRules, parseIgnoreFile, type IgnoreRule, type Verdict } from "./glob-pattern.ts"

export interface WalkOptions {
  /** Absolute directory to walk; visited paths are relative to it, `/`-separated. */
  root: string
  /** Include hidden files and directories (`.git` is skipped all the same). */
  includeHidden?: boolean
  /** rg-style globs (`*.ts`, `!*.test.ts`); they override every ignore rule, as in ripgrep. */
  globs?: readonly string[]
  /** Return false to skip a directory (relative path) without reading it. */
  descend?(relDir: string): boolean
  signal?: AbortSignal
}

/** Ignore files of one directory, and how to turn a root-relative path into one relative to it. */
interface IgnoreLevel {
  prepend: string
  strip: number
  custom: IgnoreRule[]
  ignore: IgnoreRule[]
  git: IgnoreRule[]
  exclude: IgnoreRule[]
  hasGit: boolean
}

/** Visits every selected file in order; `visit` returns true to stop the walk. */
export async function walkFiles(
  options: WalkOptions,
  visit: (relPath: string, absPath: string) => boolean | void,
): Promise<void> {
  const overrides = compileOverrides(options.globs ?? [])
  const hasWhitelist = overrides.some((rule) => !rule.negate)
  const includeHidden = options.includeHidden ?? false
  const ancestors = ancestorLevels(options.root)
  let visited = 0
  let stopped = false

  const verdictFor = (levels: readonly IgnoreLevel[], rel: string, name: string, isDir: boolean): Verdict => {
    if (overrides.length) {
      const v = matchRules(overrides, rel, isDir)
      // An rg glob that matches includes the file; `!glob` excludes it.
      if (v !== "none") return v === "ignore" ? "whitelist" : "ignore"
      if (hasWhitelist && !isDir) return "ignore"
    }
    const v = ignoreVerdict(levels, rel, isDir)
    if (v !== "none") return v
    if (!includeHidden && name.startsWith(".")) return "ignore"
    return "none"
  }

  const walkDir = async (abs: string, rel: string, parents: readonly IgnoreLevel[]): Promise<void> => {
    let entries: Dirent[]
    try {
      entries = readdirSync(abs, { withFileTypes: true })
    } catch {
      return // unreadable directory: skipped, as ripgrep does with --no-messages
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const level = loadLevel(abs, rel, entries)
    const levels = level ? [level, ...parents] : parents
    for (const entry of entries) {
      if (stopped) return
      if (++visited % 512 === 0) {
        await new Promise((resolve) => setImmediate(resolve))
        if (options.signal?.aborted) throw new CancelledError()
      }
      const name = entry.name
      let isDir = entry.isDirectory()
      let isFile = entry.isFile()
      if (!isDir && !isFile && !entry.isSymbolicLink()) {
        // Some file systems report no type; ask.
        try {
          const stat = statSync(path.join(abs, name), { throwIfNoEntry: false })
          isDir = stat?.isDirectory() ?? false
          isFile = stat?.isFile() ?? false
        } catch {
          continue
        }
      }
      if (!isDir && !isFile) continue
      if (name === ".git" && includeHidden) continue
      const childRel = rel ? `${rel}/${name}` : name
      if (verdictFor(levels, childRel, name, isDir) === "ignore") continue
      const childAbs = path.join(abs, name)
      if (isDir) {
        if (options.descend && !options.descend(childRel)) continue
        await walkDir(childAbs, childRel, levels)
      } else if (visit(childRel, childAbs)) {
        stopped = true
        return
      }
    }
  }

  if (options.signal?.aborted) throw new CancelledError()
  await walkDir(options.root, "", ancestors)
}

/** rg globs use gitignore syntax with the sense inverted: a match means "search this". */
function compileOverrides(globs: readonly string[]): IgnoreRule[] {
  return globs.flatMap((glob) => parseIgnoreFile(glob))
}

/**
 * Like ripgrep's ignore matcher: within each kind of ignore file the deepest directory with a
 * matching line wins; between kinds .rgignore beats .ignore beats .gitignore beats
 * .git/info/exclude. Git's files are not consulted above the repository root.
 */
function ignoreVerdict(levels: readonly IgnoreLevel[], rel: string, isDir: boolean): Verdict {
  let custom: Verdict = "none"
  let ignore: Verdict = "none"
  let git: Verdict = "none"
  let exclude: Verdict = "none"
  let sawGit = false
  for (const level of levels) {
    const local = level.prepend + (level.strip ? rel.slice(level.strip) : rel)
    if (custom === "none" && level.custom.length) custom = matchRules(level.custom, local, isDir)
    if (ignore === "none" && level.ignore.length) ignore = matchRules(level.ignore, local, isDir)
    if (!sawGit) {
      if (git === "none" && level.git.length) git = matchRules(level.git, local, isDir)
      if (exclude === "none" && level.exclude.length) exclude = matchRules(level.exclude, local, isDir)
    }
    sawGit ||= level.hasGit
  }
  if (custom !== "none") return custom
  if (ignore !== "none") return ignore
  if (git !== "none") return git
  return exclude
}

function readRules(file: string): IgnoreRule[] {
  try {
    return parseIgnoreFile(readFileSync(file, "utf8"))
  } catch {
    return []
  }
}

/** The ignore files of a directory inside the walk, or undefined when it has none. */
function loadLevel(abs: string, rel: string, entries: readonly Dirent[]): IgnoreLevel | undefined {
  let names: Set<string> | undefined
  for (const entry of entries) {
    const name = entry.name
    if (name === ".gitignore" || name === ".ignore" || name === ".rgignore" || name === ".git") {
      ;(names ??= new Set()).add(name)
    }
  }
  if (!names) return undefined
  return makeLevel(abs, "", rel ? rel.length + 1 : 0, names)
}

function makeLevel(abs: string, prepend: string, strip: number, names: ReadonlySet<string>): IgnoreLevel {
  const hasGit = names.has(".git")
  return {
    prepend,
    strip,
    custom: names.has(".rgignore") ? readRules(path.join(abs, ".rgignore")) : [],
    ignore: names.has(".ignore") ? readRules(path.join(abs, ".ignore")) : [],
    git: names.has(".gitignore") ? readRules(path.join(abs, ".gitignore")) : [],
    exclude: hasGit ? readRules(path.join(abs, ".git", "info", "exclude")) : [],
    hasGit,
  }
}

/** Ignore files of the directories above the root, nearest first. */
function ancestorLevels(root: string): IgnoreLevel[] {
  const levels: IgnoreLevel[] = []
  let dir = path.resolve(root)
  for (;;) {
    const parent = path.dirname(dir)
    if (parent === dir) break
    dir = parent
    const names = new Set([".gitignore", ".ignore", ".rgignore", ".git"].filter((name) => existsSync(path.join(dir, name))))
    if (names.size === 0) continue
    const prepend = path.relative(dir, root).split(path.sep).join("/") + "/"
    levels.push(makeLevel(dir, prepend, 0, names))
  }
  return levels
}
