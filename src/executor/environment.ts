/**
 * Facts about the machine the executor runs on, for the system prompt: the model then knows the
 * OS, the shell its bash() runs, today's date and the state of the repository without spending a
 * script on them. Gathered by the executor, so over --ssh they are the far side's.
 *
 * Everything here is cheap and bounded: git gets one `git status` with a time limit (a huge
 * repository must not stall the start), and a fact that cannot be had is left out.
 */
import { readFile } from "node:fs/promises"
import { arch, platform, release } from "node:os"
import { dirname, isAbsolute, join, resolve } from "node:path"
import type { Environment } from "../contract.ts"
import { localDate } from "./local-date.ts"
import { repositoryRoot } from "../config/project-files.ts"
import { SHELL_VERSION } from "./shell-version.ts"
import { FILTER_LISTING, repositoryFiltersOff } from "../util/git-filters.ts"

/** How long `git status` may take before the start goes on without the number of changed files. */
export const GIT_STATUS_TIMEOUT_MS = 1_500

/** The probes startEnvironment began, for the first gatherEnvironment of that directory. */
let started: { directory: string; git: Promise<Environment["git"] | undefined> } | undefined

/**
 * Starts the probes (a few processes) at once, so that an executor's first capabilities request
 * finds them done: they run while its modules load.
 */
export function startEnvironment(directory: string): void {
  void osDescription()
  void shellVersion()
  started = { directory, git: gitFacts(directory) }
}

export async function gatherEnvironment(directory: string, now = new Date()): Promise<Environment> {
  const git = started?.directory === directory ? started.git : gitFacts(directory)
  started = undefined
  const [osName, shell, gitState] = await Promise.all([osDescription(), shellVersion(), git])
  return {
    os: platform(),
    ...(osName ? { osName } : {}),
    arch: arch(),
    ...(shell ? { shell } : {}),
    date: localDate(now),
    ...(gitState ? { git: gitState } : {}),
  }
}


let osCache: Promise<string | undefined> | undefined
/** The distribution on Linux (apt or apk matters to a model), the release elsewhere. */
function osDescription(): Promise<string | undefined> {
  return (osCache ??= (async () => {
    if (platform() === "darwin") return `macOS (Darwin ${release()})`
    if (platform() !== "linux") return `${platform()} ${release()}`
    const text = await readFile("/etc/os-release", "utf8").catch(() => "")
    const pretty = /^PRETTY_NAME=(.*)$/m.exec(text)?.[1]?.replace(/^["']|["']$/g, "").trim()
    return pretty || undefined
  })())
}

let shellCache: Promise<string | undefined> | undefined
/**
 * The shell's version as known without running bash (the agent's remembered one, or what it
 * handed its executor): taken when it is a version, and then no bash is run for it.
 */
export function knownShellVersion(version: string | undefined): void {
  if (version !== undefined && SHELL_VERSION.test(version)) shellCache ??= Promise.resolve(version)
}

/** The shell bash() runs, with its version ("bash 5.2.15"): macOS's bash 3.2 lacks much. */
function shellVersion(): Promise<string | undefined> {
  return (shellCache ??= run("bash", ["-c", 'echo "$BASH_VERSION"'], process.cwd(), 1_000).then((out) => {
    const version = out?.trim().replace(/\(.*$/, "")
    return out === undefined ? undefined : version ? `bash ${version}` : "bash"
  }))
}

async function gitFacts(directory: string): Promise<Environment["git"] | undefined> {
  const root = repositoryRoot(directory)
  if (root === undefined) return undefined
  const dotGit = join(root, ".git")
  // --no-optional-locks: never write the index (a read-only sandbox, a concurrent git). The agent
  // runs this on the host, outside the sandbox: no fsmonitor command of the repository's config,
  // and no look inside submodules, whose git would run what theirs names (a repository a script
  // added to the index).
  const args = ["-c", "core.fsmonitor=false", "--no-optional-locks", "status", "--porcelain=v1", "-b", "--ignore-submodules=dirty"]
  // Both within the one limit. A whole number: Bun kills at once on a fractional timeout.
  const started = performance.now()
  const off = await repositoryFilters(directory)
  const status = await run("git", args, directory, Math.max(1, Math.round(GIT_STATUS_TIMEOUT_MS - (performance.now() - started))), off)
  if (status !== undefined) {
    const lines = status.split("\n").filter(Boolean)
    const head = lines[0]?.startsWith("## ") ? lines.shift()!.slice(3) : ""
    return { root, branch: branchOf(head), changedFiles: lines.length }
  }
  // git is missing, refuses the directory or took too long: the branch still comes from HEAD.
  const branch = await headBranch(dotGit)
  return { root, ...(branch ? { branch } : {}) }
}

/** The environment that turns off the repository's own filter drivers (util/git-filters.ts). */
async function repositoryFilters(directory: string): Promise<Record<string, string>> {
  return repositoryFiltersOff((await run("git", FILTER_LISTING, directory, GIT_STATUS_TIMEOUT_MS)) ?? "")
}

/** The branch of `git status -b`'s first line: "main...origin/main [ahead 1]", "No commits yet on main", "HEAD (no branch)". */
function branchOf(head: string): string | undefined {
  const fresh = /^(?:No commits yet|Initial commit) on (.+)$/.exec(head)
  if (fresh) return fresh[1]
  if (head.startsWith("HEAD (no branch)")) return "(detached HEAD)"
  return head.split("...")[0]!.split(" ")[0] || undefined
}

/** The branch HEAD names, reading the files only (.git may be a worktree's "gitdir:" file). */
async function headBranch(dotGit: string): Promise<string | undefined> {
  let gitDir = dotGit
  const file = await readFile(dotGit, "utf8").catch(() => undefined)
  if (file?.startsWith("gitdir:")) {
    const target = file.slice(7).trim()
    gitDir = isAbsolute(target) ? target : resolve(dirname(dotGit), target)
  }
  // Only the first line, and only a name git could have made: the file is the repository's to
  // write, and the branch goes into the system prompt (a newline would add lines of its own).
  const head = (await readFile(join(gitDir, "HEAD"), "utf8").catch(() => "")).split("\n")[0]!.trim()
  if (head.startsWith("ref: refs/heads/")) return BRANCH_NAME.test(head.slice(16)) ? head.slice(16) : undefined
  return head ? "(detached HEAD)" : undefined
}

/** What git allows in a branch name, roughly: no control characters, spaces or ~^:?*[\ (git check-ref-format). */
const BRANCH_NAME = /^[^\x00-\x20\x7f~^:?*[\\]+$/

/**
 * A command's stdout, or undefined when it fails or outlives `timeoutMs`. Bun's own spawn: the
 * first use of node:child_process costs an executor's start tens of milliseconds.
 */
async function run(command: string, args: string[], cwd: string, timeoutMs: number, env: Record<string, string> = {}): Promise<string | undefined> {
  try {
    const child = Bun.spawn([command, ...args], { cwd, env: { ...process.env, LC_ALL: "C", ...env }, stdin: "ignore", stdout: "pipe", stderr: "ignore", timeout: timeoutMs, killSignal: "SIGKILL" })
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited])
    return code === 0 ? stdout : undefined
  } catch {
    return undefined
  }
}
