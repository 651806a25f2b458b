// Where a workspace's search index lives: $XDG_CACHE_HOME/clanka/search/<name>-<hash>/, one
// directory per workspace (absolute path), so the OS sandbox can make exactly that one writable.
// No bun:sqlite here: the sandbox set-up imports this at every start.
import { mkdirSync } from "node:fs"
import { basename, join } from "node:path"
import { cacheDirectory } from "../../util/home.ts"

function searchCacheRoot(env: Record<string, string | undefined> = process.env): string {
  return join(cacheDirectory(env), "clanka", "search")
}

export function searchIndexDir(workspace: string, env: Record<string, string | undefined> = process.env): string {
  const hash = new Bun.CryptoHasher("sha256").update(workspace).digest("hex").slice(0, 16)
  const name = basename(workspace).replace(/[^\w.-]/g, "_").slice(0, 40) || "root"
  return join(searchCacheRoot(env), `${name}-${hash}`)
}

/**
 * Creates the workspace's index directory before an executor starts in the OS sandbox, which can
 * write there only if it exists. Done only when a search is likely (run, a script that calls
 * search), so that a plain exec leaves nothing in the cache. False when it cannot be made.
 */
export function prepareSearchIndexDir(workspace: string, env: Record<string, string | undefined> = process.env): boolean {
  try {
    mkdirSync(searchIndexDir(workspace, env), { recursive: true, mode: 0o700 })
    return true
  } catch {
    return false // an unwritable cache: the index is kept in memory
  }
}
