import { join } from "node:path"

/**
 * `$HOME`, else the user database's home directory, as `os.homedir()` gives it. node:os loads only
 * then: importing it costs a process's start ~0.2 ms, on the agent's way to its sandbox, and HOME
 * is nearly always set.
 */
export function homeDirectory(env: Record<string, string | undefined> = process.env): string {
  return env.HOME || process.getBuiltinModule("node:os").homedir()
}

/** `$XDG_CACHE_HOME` when absolute (a relative one is invalid by the XDG spec), else `~/.cache`. */
export function cacheDirectory(env: Record<string, string | undefined> = process.env): string {
  return env.XDG_CACHE_HOME?.startsWith("/") ? env.XDG_CACHE_HOME : join(homeDirectory(env), ".cache")
}
