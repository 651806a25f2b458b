/**
 * Hooks run outside the sandbox, but scripts may write the workspace: a hook that runs a file of
 * the workspace (`./scripts/policy.sh`, `node tools/check.js`) would run whatever a script put
 * there, with clanka's environment (its keys) and the network. So the files a hook command names
 * are fingerprinted when the hooks are set up, before any script ran, and a hook whose file
 * changed since (written, replaced, removed, or made where there was none) is not run.
 *
 * The command is only split into words, not parsed as sh would: a file it reaches some other way
 * (a script that sources another, `npm run lint` running package.json) is not covered. Hook files
 * under `.clanka/` or outside the workspace are out of the scripts' reach altogether.
 */
import { lstatSync, statSync } from "node:fs"
import { homeDirectory } from "../util/home.ts"
import { isAbsolute, join, resolve } from "node:path"

/** For a command: a function naming the first file it names that changed since it was made, or undefined. */
export function fileGuard(command: string, cwd: string): () => string | undefined {
  const files = namedFiles(command, cwd).map((file) => ({ ...file, print: fingerprint(file.path) }))
  return () => files.find((file) => fingerprint(file.path) !== file.print)?.word
}

/**
 * The words of a command that are files, or paths (with a slash) where there is nothing yet. A
 * directory, and a redirection's target (`>> audit.log`: only written, never run), are left out.
 */
function namedFiles(command: string, cwd: string): { word: string; path: string }[] {
  const found = new Map<string, string>()
  let written = false
  for (const [word] of command.matchAll(/>+|[;&|()<`]+|[^\s;&|()<>`'"]+/g)) {
    const target = written
    written = word.startsWith(">")
    if (target || written || /^[;&|()<`]/.test(word) || word.startsWith("-") || word.includes("$")) continue
    const expanded = word === "~" || word.startsWith("~/") ? join(homeDirectory(), word.slice(1)) : word
    const path = isAbsolute(expanded) ? expanded : resolve(cwd, expanded)
    // A directory (`prettier --write src/`) is left out: scripts add files to it as they work.
    const kind = fingerprint(path).split(" ")[0]
    if ((kind === "file" || (kind === "none" && word.includes("/"))) && !found.has(path)) found.set(path, word)
  }
  return [...found].map(([path, word]) => ({ word, path }))
}

/**
 * What a path is now: its link and what it leads to, by inode, size and change time (ctime, which
 * no program can set back), or that there is nothing.
 */
function fingerprint(path: string): string {
  try {
    const link = lstatSync(path)
    const target = statSync(path)
    const kind = target.isFile() ? "file" : "other"
    return `${kind} ${link.ino} ${link.ctimeMs} ${target.dev} ${target.ino} ${target.size} ${target.ctimeMs} ${target.mtimeMs}`
  } catch {
    return "none"
  }
}
