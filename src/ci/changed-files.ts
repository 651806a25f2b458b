/**
 * The files a run changed in a git work tree, for the job summary: `git status` (what is not
 * committed), or with a base revision everything that differs from it, commits made during the
 * run included, plus untracked files.
 */
import { UsageError } from "../errors.ts"
import { FILTER_LISTING, repositoryFiltersOff } from "../util/git-filters.ts"

export type ChangeKind = "modified" | "added" | "deleted" | "renamed" | "copied" | "untracked" | "changed"

export interface ChangedFile {
  kind: ChangeKind
  path: string
  /** The old path of a rename or copy. */
  from?: string
}

export async function changedFiles(directory: string, since?: string): Promise<ChangedFile[]> {
  if (since === undefined) return parseStatus(await git(directory, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=dirty"]))
  if (since.startsWith("-")) throw new UsageError(`--since takes a revision, not "${since}"`)
  const tracked = parseNameStatus(await git(directory, ["diff", "--name-status", "-z", "-M", "--ignore-submodules=dirty", since, "--"]))
  const untracked = (await git(directory, ["ls-files", "--others", "--exclude-standard", "-z"]))
    .split("\0")
    .filter(Boolean)
    .map((path): ChangedFile => ({ kind: "untracked", path }))
  return [...tracked, ...untracked]
}

async function git(directory: string, args: string[]): Promise<string> {
  // The work tree is what the run's scripts wrote: git must run nothing they could have set up
  // there (an fsmonitor command; a nested repository's, which a submodule's status would run; the
  // clean filter of a repository a script made, which git runs to compare a file whose times
  // changed; the post-index-change hook that git diff's index refresh runs, locks or not).
  const filters = await spawnGit(directory, FILTER_LISTING).then((listed) => (listed.code === 0 ? listed.out : ""))
  const { out, err, code } = await spawnGit(directory, ["--no-optional-locks", ...args], repositoryFiltersOff(filters))
  if (code !== 0) {
    const reason = err.trim().split("\n").at(-1)?.replace(/^fatal: /, "") || `exit ${code}`
    throw new UsageError(`git ${args[0]} in ${directory} failed: ${reason}`)
  }
  return out
}

async function spawnGit(directory: string, args: string[], env: Record<string, string> = {}): Promise<{ out: string; err: string; code: number }> {
  let child
  try {
    child = Bun.spawn(["git", "-C", directory, "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", ...args], { env: { ...process.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  } catch {
    throw new UsageError("--git needs git, which is not installed")
  }
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { out, err, code }
}

/** `git status --porcelain=v1 -z`: `XY path\0`, and for a rename or copy `XY new\0old\0`. */
export function parseStatus(text: string): ChangedFile[] {
  const fields = text.split("\0")
  const files: ChangedFile[] = []
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!
    if (field.length < 4) continue
    const code = field.slice(0, 2)
    const path = field.slice(3)
    if (code === "??") files.push({ kind: "untracked", path })
    else if (code.includes("R") || code.includes("C")) files.push({ kind: code.includes("R") ? "renamed" : "copied", path, from: fields[++i] })
    else files.push({ kind: kindOf(code.includes("D") ? "D" : code.includes("A") ? "A" : code.includes("M") ? "M" : "?"), path })
  }
  return files
}

/** `git diff --name-status -z`: `S\0path\0`, and for a rename or copy `R100\0old\0new\0`. */
export function parseNameStatus(text: string): ChangedFile[] {
  const fields = text.split("\0")
  const files: ChangedFile[] = []
  for (let i = 0; i + 1 < fields.length; i++) {
    const status = fields[i]!
    if (!status) continue
    if (status[0] === "R" || status[0] === "C") {
      const from = fields[++i]!
      files.push({ kind: status[0] === "R" ? "renamed" : "copied", path: fields[++i] ?? from, from })
    } else files.push({ kind: kindOf(status[0]!), path: fields[++i]! })
  }
  return files
}

function kindOf(letter: string): ChangeKind {
  return letter === "M" ? "modified" : letter === "A" ? "added" : letter === "D" ? "deleted" : "changed"
}
