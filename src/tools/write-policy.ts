import { lstat, realpath } from "node:fs/promises"
import { tmpdir } from "node:os"
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path"
import type { SandboxPolicy } from "../contract.ts"
import { ToolError } from "../errors.ts"
import { credentialStores } from "../executor/credential-stores.ts"
import { protectedPathBelow, protectedPathOf, protectedPaths } from "./protected-paths.ts"
import type { ToolContext } from "./tool.ts"

/**
 * What a write does to its path. "write" puts content in the file, through a symlink to its target
 * (writeFile, applyPatch); "remove", "rename" and "delete" change the directory entry itself, so a
 * symlink there is acted on, not followed (removeFile, renameFile, applyPatch's deletions and moves).
 */
export type WriteAction = "write" | "remove" | "rename" | "delete"

export interface WriteTarget {
  /** The path as the script named it, for the message. */
  shown: string
  /** Absolute path the tool acts on (the tool's path resolved against the directory). */
  path: string
  action: WriteAction
}

const SYSTEM_TEMP = "/tmp"

/**
 * Why the OS sandbox refused a write that the policy check below let through (a credential store it
 * hides inside the workspace: an empty read-only directory, or a file bound over), worded as that
 * check words its refusals; undefined for any other failure. `path`: what was being written.
 */
export async function refusedBySandbox(policy: SandboxPolicy, error: unknown, path: string): Promise<string | undefined> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (policy.mode === "off" || (code !== "EROFS" && code !== "EBUSY")) return undefined
  if (policy.mode === "read-only") return "the sandbox is read-only; run with --sandbox workspace-write to allow writes"
  const store = credentialStores().find((store) => within(store, path))
  if (store) return `${store} is a credential store, which the sandbox hides from scripts (empty and read-only); run with --readable ${store} to leave it as it is, or --sandbox off`
  // EBUSY: the file is a mount point (bound over); EROFS: the directory it goes in is read-only.
  const kept = code === "EBUSY" ? path : await nearestExisting(dirname(path))
  return `the sandbox (${policy.mode}) keeps ${kept} read-only; run with --writable ${kept} to allow it, or --sandbox off`
}

async function nearestExisting(path: string): Promise<string> {
  for (;;) {
    if (await lstat(path).then(() => true, () => false)) return path
    const parent = dirname(path)
    if (parent === path) return path
    path = parent
  }
}

/**
 * Refuses, with one ToolError naming the first offender, unless every target may be written under
 * the sandbox policy: in "off" anything goes; in "read-only" nothing does; in "workspace-write" a
 * target must resolve — symlinks anywhere on the path followed, a path that does not exist yet
 * through its nearest existing ancestor — to a place strictly inside the directory, the system temp
 * directory (/tmp and os.tmpdir()) or one of the policy's writable roots, and not in a protected
 * path of the workspace or a writable root (protected-paths.ts). Callers check every target
 * before writing anything. This keeps well-meaning scripts inside the workspace; the OS sandbox is
 * what holds against a script that races it.
 */
export async function checkWritable(
  ctx: Pick<ToolContext, "directory" | "policy">,
  tool: string,
  targets: readonly WriteTarget[],
  suffix = "",
): Promise<void> {
  const { mode, writable } = ctx.policy
  if (mode === "off" || targets.length === 0) return
  if (mode === "read-only") {
    const first = targets[0]!
    throw new ToolError(
      `${tool}: cannot ${first.action} ${first.shown}: the sandbox is read-only; run with --sandbox workspace-write to allow writes${suffix}`,
    )
  }
  const temp = tmpdir()
  // Under Landlock the host's /tmp stays closed: only the sandbox's own directory there (TMPDIR).
  const landlock = ctx.policy.backend === "landlock"
  const [directory, systemTemp, ownTemp, ...others] = await Promise.all([ctx.directory, SYSTEM_TEMP, temp, ...writable].map(located))
  const roots = [directory!, ...(landlock ? [] : [systemTemp!]), ownTemp!, ...others]
  const tempText = landlock ? `$TMPDIR (${temp})` : within(SYSTEM_TEMP, temp) || within(systemTemp!, ownTemp!) ? SYSTEM_TEMP : `${SYSTEM_TEMP}, ${temp}`
  const rule = (where: string) => `the sandbox (workspace-write) allows writes only ${where}, in ${tempText} and in --writable DIRs${suffix}`
  const guarded = protectedPaths(ctx.directory, writable)
  for (const target of targets) {
    const where = await landing(target)
    if (roots.some((root) => inside(root, where))) {
      refuseProtected(tool, target, where, guarded, suffix)
      continue
    }
    if (roots.includes(where)) {
      throw new ToolError(
        `${tool}: ${target.shown} resolves to ${where}, a writable root itself, not a path inside one; ${rule(`inside the workspace ${ctx.directory}`)}`,
      )
    }
    throw new ToolError(`${tool}: ${target.shown} resolves to ${where}, outside the workspace ${ctx.directory}; ${rule("there")}`)
  }
}

/**
 * Refuses a target in a protected path (git hooks and config, clanka's project files), and the
 * removal or renaming of a directory holding one, which would take it along.
 */
function refuseProtected(tool: string, target: WriteTarget, where: string, guarded: readonly string[], suffix: string): void {
  const what = "git hooks and config, clanka.json, .mcp.json and .clanka/ in the workspace and --writable DIRs are read-only to scripts"
  const holder = protectedPathOf(where, guarded)
  if (holder) {
    const place = holder === where ? `is ${holder}` : `resolves to ${where}, in ${holder}`
    throw new ToolError(`${tool}: ${target.shown} ${place}, which is protected (${what}); run with --writable ${holder} to allow it${suffix}`)
  }
  const below = target.action === "write" ? undefined : protectedPathBelow(where, guarded)
  if (below) {
    throw new ToolError(`${tool}: cannot ${target.action} ${target.shown}: it holds ${below}, which is protected (${what}); run with --writable ${where} to allow it${suffix}`)
  }
}

/** Where the action lands on disk: a written file's real path, a changed entry's real directory. */
async function landing(target: WriteTarget): Promise<string> {
  if (target.action === "write") return located(target.path)
  const parent = dirname(target.path)
  return parent === target.path ? target.path : join(await located(parent), basename(target.path))
}

/**
 * The real path of `path`, or, when it cannot be resolved (it does not exist yet, or is a dangling
 * or looping symlink, which the tools replace rather than follow), the real path of its nearest
 * resolvable ancestor with the rest appended.
 */
async function located(path: string): Promise<string> {
  try {
    return await realpath(path)
  } catch {
    const parent = dirname(path)
    return parent === path ? path : join(await located(parent), basename(path))
  }
}

/** True when `path` is strictly below `root`. */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
}

/** True when `path` is `root` or below it. */
function within(root: string, path: string): boolean {
  return root === path || inside(root, path)
}
