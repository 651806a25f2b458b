/**
 * A project's config files as loadConfig reads them: for each directory from the repository root
 * down to the project directory its `.mcp.json` and its `clanka.json`. They are read once, and the
 * trust fingerprint is taken over the very bytes that are then parsed (no change slips in between).
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { UsageError } from "../errors.ts"

export interface ProjectFile {
  path: string
  kind: "config" | "mcp"
  /** The file's bytes; undefined when it does not exist. */
  content?: Buffer
}

/**
 * The project's directories, nearest last: `directory` and its parents up to the repository root
 * (the nearest one holding `.git`); outside a repository, `directory` alone.
 */
export function projectDirectories(directory: string): string[] {
  const dirs: string[] = []
  let dir = resolve(directory)
  for (;;) {
    dirs.push(dir)
    if (existsSync(join(dir, ".git"))) return dirs.reverse()
    const parent = dirname(dir)
    if (parent === dir) return [resolve(directory)]
    dir = parent
  }
}

/** The repository `directory` is in: its root (the nearest directory holding `.git`), undefined outside one. */
export function repositoryRoot(directory: string): string | undefined {
  const top = projectDirectories(directory)[0]!
  return existsSync(join(top, ".git")) ? top : undefined
}

/** Every candidate file of the chain, lowest precedence first, with its content if it exists. */
export function readProjectFiles(directory: string): ProjectFile[] {
  const files: ProjectFile[] = []
  for (const dir of projectDirectories(directory)) {
    for (const [name, kind] of [[".mcp.json", "mcp"], ["clanka.json", "config"]] as const) {
      const path = join(dir, name)
      const content = readIfPresent(path)
      files.push(content === undefined ? { path, kind } : { path, kind, content })
    }
  }
  return files
}

/** More than any config file holds: a bigger one (a symlink to a huge file) is refused unread. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024

/**
 * A file's bytes; undefined when it does not exist; any other failure is the user's to fix. Only
 * a regular file is read: a FIFO (opened without waiting for a writer) or a device that a script
 * left in the project's place would hang or never end the next start.
 */
export function readIfPresent(path: string): Buffer | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT" || code === "ENOTDIR") return undefined
    throw new UsageError(`${path}: cannot read it: ${code ?? (error as Error).message}`)
  }
  try {
    const info = fstatSync(fd)
    if (info.isDirectory()) throw new UsageError(`${path}: cannot read it: EISDIR`)
    if (!info.isFile()) throw new UsageError(`${path}: not a regular file (a FIFO, socket or device); remove it`)
    if (info.size > MAX_CONFIG_BYTES) throw new UsageError(`${path}: ${info.size} bytes, more than a config file holds; remove it`)
    return readFileSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * SHA-256 over every candidate's path and its content or absence: creating, changing or deleting
 * any of them changes it. Lengths are hashed before each part, so no two lists hash alike.
 */
export function fingerprint(files: readonly ProjectFile[]): string {
  // Bun's hasher: node:crypto costs every start that reads the config ~10 ms to load.
  const hash = new Bun.CryptoHasher("sha256")
  for (const file of files) {
    const path = Buffer.from(file.path)
    hash.update(`${path.length}:`).update(path)
    if (file.content === undefined) hash.update("absent;")
    else hash.update(`${file.content.length}:`).update(file.content)
  }
  return hash.digest("hex")
}
