/**
 * The instructions files that go to the model: AGENTS.md in each directory from the repository
 * root (the nearest holding `.git`; outside a repository the working directory alone) down to the
 * working directory, nearest last; CLAUDE.md where a directory has no AGENTS.md (many repositories
 * only have that one).
 *
 * Only a regular file whose real location is inside the repository (the chain's top directory) is
 * read: a cloned repository's `AGENTS.md -> /etc/passwd` (or ~/.ssh/id_ed25519) would otherwise
 * send that file to the model's provider; a FIFO would hang the start. Nor one in a credential
 * store (~/.ssh, ~/.npmrc, …): inside a home that is a repository those are inside it.
 */
import { lstat, realpath } from "node:fs/promises"
import { isAbsolute, join, relative, sep } from "node:path"
import type { InstructionsFile } from "../contract.ts"
import { projectDirectories } from "../config/project-files.ts"
import { credentialStoreOf } from "./credential-stores.ts"
import { isUnder } from "./sandbox-paths.ts"
import { readHead } from "../util/read-head.ts"

/** What all the files may hold together; farther files are cut first. */
export const INSTRUCTIONS_MAX_CHARS = 64 * 1024

export interface InstructionsChain {
  files: InstructionsFile[]
  /** Why a file that is there was not read (or was cut): one line each, for the user. */
  warnings: string[]
}

export async function readInstructionsChain(directory: string): Promise<InstructionsChain> {
  const dirs = projectDirectories(directory)
  const top = await realpath(dirs[0]!).catch(() => dirs[0]!)
  const found = await Promise.all(dirs.map((dir) => readOne(dir, top, directory)))
  const warnings = found.flatMap((one) => (one.warning ? [one.warning] : []))
  const files = found.flatMap((one) => (one.file ? [one.file] : []))
  // The nearest file is the most specific: the budget goes to it first.
  let left = INSTRUCTIONS_MAX_CHARS
  for (const file of [...files].reverse()) {
    if (file.text.length > left) {
      file.text = `${file.text.slice(0, left)}\n[cut: the instructions files hold more than ${INSTRUCTIONS_MAX_CHARS} characters]`
      warnings.push(`${shown(file.path, directory)} was cut: the instructions files hold more than ${INSTRUCTIONS_MAX_CHARS} characters`)
    }
    left = Math.max(0, left - file.text.length)
  }
  return { files, warnings }
}

async function readOne(dir: string, top: string, directory: string): Promise<{ file?: InstructionsFile; warning?: string }> {
  for (const name of ["AGENTS.md", "CLAUDE.md"]) {
    const path = join(dir, name)
    const entry = await lstat(path).catch(() => undefined)
    if (!entry) continue
    const real = await realpath(path).catch(() => undefined)
    if (!real) return {}
    const what = entry.isSymbolicLink() ? `a symlink to ${real}` : `really ${real}`
    if (!inside(top, real)) return { warning: `${shown(path, directory)} is ${what}, outside the workspace; not read` }
    // Unless the store holds the repository: the sandbox then leaves it visible too.
    const store = credentialStoreOf(real)
    if (store !== undefined && !isUnder(top, store)) return { warning: `${shown(path, directory)} is ${what}, a credential store the sandbox hides; not read` }
    // As much as the budget can hold (a character is at most 4 bytes), from what the open really
    // found: a huge file costs no memory past that, a FIFO swapped in meanwhile no wait.
    const head = await readHead(real, INSTRUCTIONS_MAX_CHARS * 4).catch(() => undefined)
    if (head === "directory" || head === "not a file") return { warning: `${shown(path, directory)} is not a regular file; not read` }
    const text = head?.bytes.toString("utf8")
    return text?.trim() ? { file: { path, text } } : {}
  }
  return {}
}

/** Whether `path` is strictly inside `dir` (both real paths). */
export function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path)
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
}

/** A path for the user's warnings: relative to the working directory ("AGENTS.md", "../AGENTS.md"). */
function shown(path: string, directory: string): string {
  return relative(directory, path) || path
}
