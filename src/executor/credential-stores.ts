/**
 * The credential stores the OS sandbox hides from scripts (all modes but off): directories under
 * an empty read-only tmpfs, files under an empty read-only file, only those that exist. `--readable PATH` leaves
 * one visible (read-only, as the rest of the root). clanka's own caches (the search index, an
 * uploaded binary under ~/.cache/clanka) are not among them.
 */
import { lstatSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { isUnder, realPath, seenInside } from "./sandbox-paths.ts"
import { cacheDirectory, homeDirectory } from "../util/home.ts"

/** Under HOME. */
const HOME_STORES = [
  ".ssh",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".kube",
  ".docker/config.json",
  ".netrc",
  ".git-credentials",
  ".config/gh",
  ".npmrc",
  ".pypirc",
  ".local/state/clanka",
  ".config/clanka",
]

/**
 * Outside HOME: the secrets a container is given (Docker's and Compose's secrets, Kubernetes'
 * service account token under /var/run/secrets/kubernetes.io), where CI runs as root.
 */
const SYSTEM_STORES = ["/run/secrets", "/var/run/secrets"]

/** Every credential store's path for this environment, existing or not. */
export function credentialStores(env: Record<string, string | undefined> = process.env): string[] {
  const home = homeDirectory(env)
  const paths = [...HOME_STORES.map((path) => join(home, path)), ...SYSTEM_STORES]
  const absolute = (value: string | undefined) => (value?.startsWith("/") ? value : undefined)
  const clankaHome = absolute(env.CLANKA_HOME)
  if (clankaHome) paths.push(clankaHome)
  for (const base of [absolute(env.XDG_STATE_HOME), absolute(env.XDG_CONFIG_HOME)]) if (base) paths.push(join(base, "clanka"))
  return paths
}

/**
 * The credential store `real` (a real path) is or lies in, if any. What the sandbox hides from
 * scripts must not reach the model another way: the agent reads a project's instructions files on
 * the host, and a home that is a git repository puts ~/.ssh inside the repository.
 */
export function credentialStoreOf(real: string, env: Record<string, string | undefined> = process.env): string | undefined {
  for (const store of credentialStores(env)) {
    const path = realPath(store) ?? store
    if (isUnder(real, path)) return path
  }
  return undefined
}

/** What the hiding decided: the bwrap arguments, and the directories now empty inside. */
export interface Hidden {
  args: string[]
  /** Hidden directories (real paths), with the `--readable` paths bound back inside them. */
  dirs: { dir: string; shown: string[] }[]
}

/** A credential store to hide: its real path, and the `--readable` paths inside it left visible. */
export interface HiddenStore {
  path: string
  directory: boolean
  shown: string[]
}

/**
 * The existing credential stores to hide. `readable` (real paths) are left visible: a store inside
 * one is not hidden, one inside a store is shown. `keep` (real paths the executor needs: the
 * workspace, writable roots, its program) keep a store that holds one visible, rather than hide
 * what the executor runs from. `bound`: the binds so far (bwrap: what is seen under /tmp).
 */
export function storesToHide(options: { readable: readonly string[]; keep: readonly string[]; bound: readonly string[]; env?: Record<string, string | undefined> }): HiddenStore[] {
  const stores: HiddenStore[] = []
  const done = new Set<string>()
  for (const store of credentialStores(options.env)) {
    const real = realPath(store)
    if (!real || done.has(real) || !seenInside(real, options.bound)) continue
    done.add(real)
    if (options.readable.some((path) => isUnder(real, path))) continue
    if (options.keep.some((path) => isUnder(path, real))) continue
    const directory = statSync(real).isDirectory()
    stores.push({ path: real, directory, shown: directory ? options.readable.filter((path) => path !== real && isUnder(path, real)) : [] })
  }
  return stores
}

/** bwrap arguments hiding the existing credential stores (storesToHide): directories under an empty tmpfs, files under an empty file. */
export function hideCredentialStores(options: { readable: readonly string[]; keep: readonly string[]; bound: readonly string[]; env?: Record<string, string | undefined> }): Hidden {
  const hidden: Hidden = { args: [], dirs: [] }
  for (const { path, directory, shown } of storesToHide(options)) {
    if (directory) {
      hidden.args.push("--tmpfs", path, ...shown.flatMap((dir) => ["--ro-bind", dir, dir]), "--remount-ro", path)
      hidden.dirs.push({ dir: path, shown })
    } else hidden.args.push("--ro-bind", emptyFile(options.env), path)
  }
  return hidden
}


/**
 * An empty file to put over a hidden one: programs that read ~/.npmrc or ~/.netrc find it empty
 * rather than fail (/dev/null cannot be read there: bwrap binds files without devices). Kept in
 * clanka's cache; /dev/null when that cannot be written.
 */
function emptyFile(env: Record<string, string | undefined> = process.env): string {
  const cache = cacheDirectory(env)
  const path = join(cache, "clanka", "empty")
  try {
    const info = lstatSync(path, { throwIfNoEntry: false })
    if (info?.isFile() && info.size === 0) return path
    if (info) rmSync(path, { recursive: true, force: true })
    mkdirSync(join(cache, "clanka"), { recursive: true })
    writeFileSync(path, "", { mode: 0o444 })
    return path
  } catch {
    return "/dev/null"
  }
}
