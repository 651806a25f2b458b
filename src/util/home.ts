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

/**
 * clanka's state directory (sessions, trust, probes): `$CLANKA_HOME`, else `$XDG_STATE_HOME/clanka`
 * when that is absolute (a relative one is invalid by the XDG spec), else `~/.local/state/clanka`.
 */
export function stateDirectory(env: Record<string, string | undefined> = process.env): string {
  if (env.CLANKA_HOME) return env.CLANKA_HOME
  const state = env.XDG_STATE_HOME?.startsWith("/") ? env.XDG_STATE_HOME : join(homeDirectory(env), ".local", "state")
  return join(state, "clanka")
}
