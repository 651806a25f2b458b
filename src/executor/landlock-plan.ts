/**
 * What the Landlock backend grants, worked out where clanka starts the sandbox (it knows the
 * agent's environment: HOME, CLANKA_HOME, the XDG directories) and handed to `clanka
 * __landlock-exec`, which enforces it and then executes the executor (landlock-exec.ts).
 *
 * Reads: everything but the credential stores, the host's /tmp and /dev (names stay listable;
 * Landlock cannot hide a path the way a mount can, only refuse to open it). Since a Landlock rule
 * grants beneath its path, the directories above a refused one (/, HOME, /tmp) get no rule of
 * their own: each of their entries gets one instead. Writes: the workspace (workspace-write), the
 * --writable roots, the search index, a private temporary directory (the scripts' TMPDIR) and a
 * few devices (/dev/null, ...).
 */
import { readdirSync, statSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import type { SandboxPolicy } from "../contract.ts"
import { UsageError } from "../errors.ts"
import { storesToHide } from "./credential-stores.ts"
import { LANDLOCK_EXEC, ONE_THREAD_ENV } from "./landlock-step.ts"
import type { Grant } from "./landlock-ruleset.ts"
import { isUnder, realPath } from "./sandbox-paths.ts"

/**
 * What the environment that `argv` starts with needs beside its own: when `argv` is the Landlock
 * step, the settings that let it go on as the executor in place (landlock-in-place.ts).
 */
export function landlockStepEnv(argv: readonly string[]): Record<string, string> {
  return argv.includes(LANDLOCK_EXEC) ? ONE_THREAD_ENV : {}
}

export interface LandlockPlan {
  rules: [path: string, grant: Grant][]
  network: boolean
  /** The private temporary directory: TMPDIR inside. */
  tmp: string
  /** Where the command starts. */
  cwd: string
  /** Set in the command's environment (the sandbox's marker). */
  env: Record<string, string>
}

/** The devices a script may open, read and write (the host's /dev is otherwise closed). */
const DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"]

export interface PlanInput {
  workspace: string
  policy: SandboxPolicy
  tmp: string
  cwd: string
  /** Paths the command needs to read wherever they are (its program, an MCP server's script). */
  readable: readonly string[]
  /** The search index directory, when the executor offers search and it exists. */
  index?: string
  env: Record<string, string>
}

export function landlockPlan(input: PlanInput): LandlockPlan {
  const { policy } = input
  const real = (paths: readonly string[]) => paths.flatMap((path) => (path.startsWith("/") ? (realPath(path) ?? []) : []))
  const writable = real(policy.mode === "workspace-write" ? [input.workspace, ...policy.writable] : [])
  const tmp = realPath(input.tmp) ?? input.tmp
  const needed = real(input.readable)
  const readable = real(policy.readable ?? [])
  const keep = real([input.workspace, ...policy.writable, ...input.readable]).filter((path) => !readable.includes(path))
  const stores = storesToHide({ readable, keep, bound: [] })
  // A rule grants beneath its path: a store inside a writable root could not be kept from scripts.
  const exposed = stores.find((store) => writable.some((root) => isUnder(store.path, root)))
  if (exposed) {
    throw new UsageError(
      `${exposed.path} is a credential store inside a writable directory, which the Landlock sandbox cannot hide; pass --readable ${exposed.path} to leave it open to scripts (writable there), work in a project directory instead, or use bubblewrap`,
    )
  }
  // The private directory's own (write) rule comes below; where the host's temporary directory is
  // not /tmp (TMPDIR=/var/tmp/...) the other sandboxes' private directories beside it stay closed:
  // those there now, and those made later (its parent gets a rule per entry there is now).
  const refused = ["/tmp", "/dev", ...stores.map((store) => store.path), tmp, ...otherPrivateTmps(tmp)]
  const rules: [string, Grant][] = [["/", "list"]]
  for (const path of readRules(refused)) rules.push([path, "read"])
  // What is read inside a refused place: a --readable path in a store, the executor's program or
  // the workspace under /tmp (the workspace's own rule follows below). A program file under /tmp
  // brings its top directory there, as bubblewrap binds it: clanka run from a source checkout in
  // /tmp imports the modules beside its entry script.
  for (const path of [...stores.flatMap((store) => store.shown), ...needed.map(programTree), real([input.workspace])[0] ?? input.workspace]) {
    if (refused.some((dir) => isUnder(path, dir))) rules.push([path, "read"])
  }
  for (const path of [...writable, tmp, ...(input.index ? real([input.index]) : [])]) rules.push([path, "write"])
  for (const device of DEVICES) rules.push([device, "device"])
  return { rules, network: policy.network, tmp, cwd: input.cwd, env: input.env }
}

/** The other sandboxes' private temporary directories beside `tmp` (landlock-tmp.ts names them). */
function otherPrivateTmps(tmp: string): string[] {
  const base = dirname(tmp)
  try {
    return readdirSync(base)
      .filter((name) => name.startsWith("clanka-sandbox-"))
      .map((name) => join(base, name))
      .filter((path) => path !== tmp)
  } catch {
    return []
  }
}

/** For a file under /tmp (a real path), the directory /tmp/NAME it lies in; else the path itself. */
function programTree(path: string): string {
  const top = path.match(/^\/tmp\/[^/]+(?=\/)/)?.[0]
  return top && statSync(path, { throwIfNoEntry: false })?.isFile() ? top : path
}

/**
 * The plan's file, in its private temporary directory (`__landlock-exec` reads and removes it
 * before the sandbox is up): its path.
 */
export function writePlan(plan: LandlockPlan): string {
  const path = join(plan.tmp, ".clanka-landlock-plan.json")
  writeFileSync(path, JSON.stringify(plan), { mode: 0o600 })
  return path
}

/**
 * Paths to grant reading beneath so that everything is readable but what is under `refused` (real
 * paths): a directory holding none of them is one rule; one that holds some is split into its
 * entries. Symlinks get no rule: reading through one is checked where it leads.
 */
export function readRules(refused: readonly string[]): string[] {
  const rules: string[] = []
  const visit = (dir: string) => {
    if (refused.includes(dir)) return
    if (!refused.some((path) => isUnder(path, dir))) {
      rules.push(dir)
      return
    }
    let entries: import("node:fs").Dirent[]
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) visit(path)
      else if (entry.isFile() && !refused.includes(path)) rules.push(path)
    }
  }
  visit("/")
  return rules
}
