/**
 * Repositories a script adds to the workspace's index (a gitlink, as `git add` makes for an
 * embedded repository, or `git submodule add`). `git status`, `git diff` and `git commit` of the
 * workspace, run by the user outside the sandbox, enter each such directory as a submodule and run
 * what its own config says (core.fsmonitor, hooks): a script could leave a command there for the
 * host to run. So when the sandbox ends, each gitlink whose directory holds a `.git` and did not
 * when the sandbox started has that `.git` renamed aside (`.git.clanka-quarantined`): git then
 * sees an unpopulated submodule and runs nothing of it, and the user is told how to take it back.
 */
import { closeSync, lstatSync, renameSync } from "node:fs"
import { join } from "node:path"
import { repositoryRoot } from "../config/project-files.ts"
import { at, openBelow, ownerWritable } from "./pinned-fs.ts"

const QUARANTINE = ".git.clanka-quarantined"

/** The gitlinks of the repository `root` is in (paths below `root`) whose directory holds a `.git`; undefined without git or a repository. */
export function populatedGitlinks(root: string): Set<string> | undefined {
  // Outside a repository git has nothing to list: no process is started for it.
  if (!process.env.GIT_DIR && repositoryRoot(root) === undefined) return undefined
  // The config git reads here is the protected one; no fsmonitor, hooks or filters run for ls-files.
  const listed = gitOutput(["-C", root, "-c", "core.fsmonitor=false", "ls-files", "--stage", "-z"])
  if (listed === undefined) return undefined
  const links = new Set<string>()
  for (const entry of listed.split("\0")) {
    if (!entry.startsWith("160000 ")) continue
    const path = entry.slice(entry.indexOf("\t") + 1)
    if (lstatSync(join(root, path, ".git"), { throwIfNoEntry: false })) links.add(path)
  }
  return links
}

/** git's stdout, or undefined when git is missing, fails or takes over 10 s. Bun's spawn: node:child_process costs the start milliseconds to load. */
function gitOutput(args: string[]): string | undefined {
  try {
    const run = Bun.spawnSync(["git", ...args], { stdin: "ignore", stdout: "pipe", stderr: "ignore", timeout: 10_000, maxBuffer: 1 << 30 })
    return run.exitCode === 0 ? run.stdout.toString() : undefined
  } catch {
    return undefined
  }
}

/** Quarantines the `.git` of each populated gitlink not in `before`; the lines saying so. */
export function quarantineNewGitlinks(root: string, before: ReadonlySet<string>): string[] {
  const now = populatedGitlinks(root)
  if (!now) return []
  const lines: string[] = []
  for (const path of now) {
    if (before.has(path)) continue
    const dir = openBelow(root, path.split("/").filter(Boolean))
    if (dir === undefined) continue
    try {
      const aside = lstatSync(at(dir, QUARANTINE), { throwIfNoEntry: false }) ? `${QUARANTINE}-${Date.now()}` : QUARANTINE
      // Renamed relative to the directory held open: never through a symlink swapped in; in a
      // directory the script made unwritable too (chmod 555), as its owner.
      ownerWritable(dir)
      renameSync(at(dir, ".git"), at(dir, aside))
      const shown = join(root, path)
      lines.push(
        `sandbox: a script added ${shown} to the index as a repository of its own; git in the workspace would run what its config says (core.fsmonitor, hooks) outside the sandbox, so its .git is now ${join(shown, aside)}: check its config, then rename it back to .git`,
      )
    } catch {
      // Gone or not ours to rename: nothing to quarantine.
    } finally {
      closeSync(dir)
    }
  }
  return lines
}
