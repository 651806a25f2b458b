/** Path tests the bubblewrap argv is built with (absolute, normalised paths). */
import { realpathSync } from "node:fs"

/** `path` is `dir` or lies below it. */
export function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`)
}

/** The path with symlinks resolved, or undefined when it does not exist. */
export function realPath(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

/**
 * Whether `path` can be seen inside the sandbox at its own place: /dev and /proc are the
 * sandbox's own, and of /tmp only what was bound into the private one (`bound`).
 */
export function seenInside(path: string, bound: readonly string[]): boolean {
  if (isUnder(path, "/dev") || isUnder(path, "/proc")) return false
  return !isUnder(path, "/tmp") || bound.some((dir) => dir !== "/" && dir !== "/tmp" && isUnder(path, dir))
}

/** The destinations of the binds in a bwrap argv so far (`--bind SRC DEST`, `--ro-bind SRC DEST`). */
export function boundPaths(args: readonly string[]): string[] {
  const bound: string[] = []
  for (let i = 0; i < args.length; i++) if (args[i] === "--bind" || args[i] === "--ro-bind") bound.push(args[i + 2]!)
  return bound
}
