/**
 * The workspace's AGENTS.md, which goes to the model: only a regular file whose real location is
 * inside the workspace. A cloned repository's `AGENTS.md -> /etc/passwd` (or ~/.ssh/id_ed25519)
 * would otherwise send that file to the model's provider; a FIFO would hang the start.
 */
import { lstat, readFile, realpath, stat } from "node:fs/promises"
import { isAbsolute, join, relative, sep } from "node:path"

export interface AgentsMd {
  text: string | null
  /** Why an AGENTS.md that is there was not read: one line for the user. */
  warning?: string
}

export async function readAgentsMd(directory: string): Promise<AgentsMd> {
  const path = join(directory, "AGENTS.md")
  const entry = await lstat(path).catch(() => undefined)
  if (!entry) return { text: null }
  const [real, workspace] = await Promise.all([realpath(path).catch(() => undefined), realpath(directory).catch(() => directory)])
  if (!real) return { text: null }
  const rel = relative(workspace, real)
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    const what = entry.isSymbolicLink() ? `a symlink to ${real}` : `really ${real}`
    return { text: null, warning: `AGENTS.md is ${what}, outside the workspace; not read` }
  }
  if (!(await stat(real)).isFile()) return { text: null, warning: "AGENTS.md is not a regular file; not read" }
  return { text: await readFile(real, "utf8").catch(() => null) }
}
