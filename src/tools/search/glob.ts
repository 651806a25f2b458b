// glob(pattern): files under the directory whose relative path matches, sorted. Hidden files are
// included (a model looking for `.github/**/*.yml` should find them); .git and what .gitignore
// excludes are not.
import { ToolError } from "../../errors.ts"
import { globSource, globToRegExp, isLiteralGlob } from "./glob-pattern.ts"
import { walkFiles } from "./walk.ts"

/** More paths than this are not useful to a model; the rest is summarised in a note entry. */
export const GLOB_LIMIT = 10_000

export async function globFiles(pattern: string, directory: string, signal?: AbortSignal, limit = GLOB_LIMIT): Promise<string[]> {
  const normalized = pattern.replace(/^(\.\/)+/, "")
  if (normalized === "") throw new ToolError("empty pattern; try \"**/*\"")
  if (normalized.startsWith("/") || normalized.split("/").includes("..")) {
    throw new ToolError(`pattern ${JSON.stringify(pattern)} must be relative to the working directory, without ".."`)
  }
  // Not a gitignore line: "!x" would match nothing and answer [] as if no file were there.
  if (normalized.startsWith("!")) {
    throw new ToolError(`pattern ${JSON.stringify(pattern)}: a leading "!" (negation) is not supported; glob the files and filter the list in the script`)
  }
  const regex = globToRegExp(normalized)
  const descend = directoryFilter(normalized)
  const found: string[] = []
  await walkFiles({ root: directory, includeHidden: true, descend, signal }, (relPath) => {
    if (regex.test(relPath)) found.push(relPath)
  })
  found.sort()
  if (found.length <= limit) return found
  const extra = found.length - limit
  return [...found.slice(0, limit), `[… ${extra} more files not shown; narrow the pattern]`]
}

/**
 * Skips directories that cannot hold a match: each of their path segments must match the
 * pattern's segment at the same depth, until a `**`.
 */
function directoryFilter(pattern: string): ((relDir: string) => boolean) | undefined {
  if (/\{[^}]*\/[^}]*\}/.test(pattern)) return undefined // a `/` inside braces: segments are not fixed
  const segments = pattern.split("/")
  const matchers = segments.map((segment) =>
    segment === "**" ? undefined : isLiteralGlob(segment) ? segment : new RegExp(`^${globSource(segment)}$`),
  )
  return (relDir) => {
    const parts = relDir.split("/")
    for (let i = 0; i < parts.length; i++) {
      if (segments[i] === "**") return true
      // The pattern's last segment names files: a directory this deep cannot hold a match.
      if (i >= segments.length - 1) return false
      if (!ok(matchers[i], parts[i]!)) return false
    }
    return true
  }
}

function ok(matcher: string | RegExp | undefined, part: string): boolean {
  if (matcher === undefined) return true
  return typeof matcher === "string" ? matcher === part : matcher.test(part)
}
