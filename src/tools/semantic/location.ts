// Where a workspace's search index lives: $XDG_CACHE_HOME/clanka/search/<name>-<hash>/, one
// directory per workspace (absolute path), so the OS sandbox can make exactly that one writable.
// No bun:sqlite here: the sandbox set-up imports this at every start.
import { createHash } from "node:crypto"
import { homedir } from "node:os"
import { basename, join } from "node:path"

export function searchCacheRoot(env: Record<string, string | undefined> = process.env): string {
  const cache = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith("/") ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), ".cache")
  return join(cache, "clanka", "search")
}

export function searchIndexDir(workspace: string, env: Record<string, string | undefined> = process.env): string {
  const hash = createHash("sha256").update(workspace).digest("hex").slice(0, 16)
  const name = basename(workspace).replace(/[^\w.-]/g, "_").slice(0, 40) || "root"
  return join(searchCacheRoot(env), `${name}-${hash}`)
}
