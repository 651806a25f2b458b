import type { Stats } from "node:fs"
import { chmod, cp, lstat, mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises"
import { basename, dirname, resolve } from "node:path"
import * as v from "valibot"
import { ToolError } from "../errors.ts"
import { defineTool, type Tool, type ToolContext } from "./tool.ts"
import { checkWritable, refusedBySandbox, type WriteAction } from "./write-policy.ts"
import { filesChanged } from "./semantic/live.ts"
import { randomHex } from "../util/random-hex.ts"
import { looksBinary, tooLarge } from "./text-size.ts"
import { keepOwner } from "./keep-owner.ts"
import { sameNameOnDisk } from "./unicode-name.ts"

/**
 * Tool paths are relative to the executor's directory; absolute paths pass through. An empty
 * path would resolve to the directory itself and fail with a puzzling message, so it is refused.
 */
export function resolvePath(ctx: ToolContext, path: string, tool: string, empty = "path is empty"): string {
  if (path === "") throw new ToolError(`${tool}: ${empty}`)
  return resolve(ctx.directory, path)
}

/** stat() that answers null for a missing path instead of throwing. */
async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await stat(path)
  } catch (error) {
    if (isCode(error, "ENOENT") || isCode(error, "ENOTDIR")) return null
    throw error
  }
}

function isCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === code
}

/** The lines startLine..endLine (1-based, inclusive) of text, each with its own line ending. */
export function sliceLines(text: string, startLine = 1, endLine = Number.POSITIVE_INFINITY): string {
  let start = 0
  for (let line = 1; line < startLine; line++) {
    const newline = text.indexOf("\n", start)
    if (newline === -1) return ""
    start = newline + 1
  }
  let end = start
  for (let line = startLine; line <= endLine; line++) {
    const newline = text.indexOf("\n", end)
    if (newline === -1) return text.slice(start)
    end = newline + 1
  }
  return text.slice(start, end)
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/**
 * The file's text, byte for byte. Decoding anything else would put U+FFFD where bytes were, and
 * writing that back would corrupt the file, so it is refused. A BOM is kept as U+FEFF.
 */
function decodeText(bytes: Uint8Array, path: string): string {
  const refuse = (kind: string) => new ToolError(`readFile: ${path} is not UTF-8 text (${kind}, ${bytes.length} bytes); use bash to inspect it`)
  // applyPatch calls such a file binary as well.
  if (looksBinary(bytes)) throw refuse("binary file")
  try {
    return utf8.decode(bytes)
  } catch {
    throw refuse(bytes.includes(0) ? "binary file" : "invalid UTF-8")
  }
}

/** Writes through a temporary file in the same directory so readers never see half a file. */
async function writeAtomic(target: string, content: string): Promise<void> {
  const existing = await statOrNull(target)
  const temp = `${dirname(target)}/.${basename(target)}.${randomHex(6)}.tmp`
  try {
    await writeFile(temp, content)
    // Keep an executable script executable, and a file root rewrites its owner's.
    if (existing) await keepOwner(temp, existing)
    if (existing) await chmod(temp, existing.mode & 0o7777)
    await rename(temp, target)
  } catch (error) {
    // The write's own failure is the one to report, not a failed clean-up after it.
    await rm(temp, { force: true }).catch(() => {})
    throw error
  }
}

/** Runs a write; a refusal of the OS sandbox becomes one line naming the directory and the flag. */
async function writing<T>(ctx: ToolContext, tool: string, action: WriteAction, shown: string, path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    const reason = await refusedBySandbox(ctx.policy, error, path)
    if (reason) throw new ToolError(`${tool}: cannot ${action} ${shown}: ${reason}`)
    // The temp file is gone again and the file as it was: say so, not just the raw ENOSPC.
    if (isCode(error, "ENOSPC") || isCode(error, "EDQUOT")) throw new ToolError(`${tool}: cannot ${action} ${shown}: no space left on the device; the file is unchanged`)
    throw error
  }
}

/** rename()'s refusals in words (the raw ones name absolute paths and say "illegal operation"). */
const RENAME_REFUSALS: Record<string, string> = {
  EISDIR: "the target is a directory; give the file's full new path",
  ENOTEMPTY: "the target is a directory that is not empty",
  EEXIST: "the target is a directory that is not empty",
  ENOTDIR: "the target is a file and the source a directory",
  EINVAL: "a directory cannot move into itself",
}

/**
 * rename(), and across file systems (the sandbox's /tmp is one of its own) a copy and a removal, as
 * mv does; a source that cannot be removed takes the copy back. A sandbox refusal names its side.
 */
async function move(ctx: ToolContext, shown: string, source: string, target: string): Promise<void> {
  const step = (path: string, work: () => Promise<void>) => writing(ctx, "renameFile", "rename", shown, path, work)
  try {
    return await step(target, () => rename(source, target))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code
    const why = code === undefined ? undefined : RENAME_REFUSALS[code]
    if (why) throw new ToolError(`renameFile: cannot move ${shown}: ${why}`)
    if (code !== "EXDEV") throw error
  }
  if ((await statOrNull(target))?.isDirectory()) throw new ToolError(`renameFile: ${shown}: the target is a directory on another file system; remove it first`)
  const orUndo = (work: () => Promise<void>) => async () => {
    try {
      await work()
    } catch (error) {
      await rm(target, { recursive: true, force: true }).catch(() => {})
      throw error
    }
  }
  await step(target, orUndo(() => cp(source, target, { recursive: true, force: true, preserveTimestamps: true, verbatimSymlinks: true })))
  await step(source, orUndo(() => rm(source, { recursive: true })))
}

const Line = v.pipe(v.number(), v.integer(), v.minValue(1))

export const fsTools: Tool[] = [
  defineTool({
    name: "readFile",
    keepsIndex: true,
    description: "Read a text file, optionally only lines startLine..endLine (1-based, inclusive); null if missing.",
    params: v.object({ path: v.string(), startLine: v.optional(Line), endLine: v.optional(Line) }),
    result: v.nullable(v.string()),
    run: async ({ path, startLine, endLine }, ctx) => {
      if (startLine !== undefined && endLine !== undefined && endLine < startLine) {
        throw new ToolError(`readFile: endLine ${endLine} is before startLine ${startLine}`)
      }
      const target = await sameNameOnDisk(resolvePath(ctx, path, "readFile"))
      const info = await statOrNull(target)
      if (!info) return null
      if (info.isDirectory()) throw new ToolError(`readFile: ${path} is a directory; use ls("${path}")`)
      // A FIFO would wait for a writer forever (holding one of the few I/O threads), /dev/zero never end.
      if (!info.isFile()) throw new ToolError(`readFile: ${path} is not a regular file (a FIFO, socket or device); use bash to read it`)
      const large = tooLarge(info.size)
      if (large) throw new ToolError(`readFile: ${path}: ${large}; use bash (head, tail, sed -n) to read part of it`)
      const text = decodeText(await readFile(target), path)
      return startLine === undefined && endLine === undefined ? text : sliceLines(text, startLine, endLine)
    },
  }),
  defineTool({
    name: "writeFile",
    keepsIndex: true,
    description: "Create or overwrite a file with content, creating parent directories.",
    params: v.object({ path: v.string(), content: v.string() }),
    result: v.void(),
    run: async ({ path, content }, ctx) => {
      const target = await sameNameOnDisk(resolvePath(ctx, path, "writeFile"))
      // resolve() drops the slash, so "d/" would otherwise become a file named d.
      if (path.endsWith("/")) throw new ToolError(`writeFile: ${path} ends with "/", which names a directory; give the path of a file`)
      await checkWritable(ctx, "writeFile", [{ shown: path, path: target, action: "write" }])
      if ((await statOrNull(target))?.isDirectory()) throw new ToolError(`writeFile: ${path} is a directory`)
      const real = await realpath(target).catch(() => target)
      await writing(ctx, "writeFile", "write", path, real, async () => {
        await mkdirFor(target, path, "writeFile")
        // Through a symlink to its target: renaming over the link would replace it with a file.
        await writeAtomic(real, content)
      })
      await filesChanged(ctx.directory, [target])
    },
  }),
  defineTool({
    name: "removeFile",
    keepsIndex: true,
    description: "Delete a file.",
    params: v.string(),
    paramName: "path",
    result: v.void(),
    run: async (path, ctx) => {
      const target = await sameNameOnDisk(resolvePath(ctx, path, "removeFile"))
      await checkWritable(ctx, "removeFile", [{ shown: path, path: target, action: "remove" }])
      // A symlink is removed itself, even one to a directory; lstat does not follow it.
      const info = await lstat(target).catch(() => null)
      if (!info) throw new ToolError(`removeFile: ${path} does not exist`)
      if (info.isDirectory()) throw new ToolError(`removeFile: ${path} is a directory; use bash({ command: "rm -r ${path}" })`)
      await writing(ctx, "removeFile", "remove", path, target, () => rm(target))
      await filesChanged(ctx.directory, [target])
    },
  }),
  defineTool({
    name: "renameFile",
    keepsIndex: true,
    description: "Move or rename a file or directory, creating the target's parent directories.",
    params: v.object({ from: v.string(), to: v.string() }),
    result: v.void(),
    run: async ({ from, to }, ctx) => {
      const source = await sameNameOnDisk(resolvePath(ctx, from, "renameFile", "from is empty"))
      const target = resolvePath(ctx, to, "renameFile", "to is empty")
      await checkWritable(ctx, "renameFile", [
        { shown: from, path: source, action: "rename" },
        { shown: to, path: target, action: "rename" },
      ])
      if (!(await statOrNull(source))) throw new ToolError(`renameFile: ${from} does not exist`)
      await writing(ctx, "renameFile", "rename", `${from} to ${to}`, target, () => mkdirFor(target, to, "renameFile"))
      await move(ctx, `${from} to ${to}`, source, target)
      await filesChanged(ctx.directory, [source, target])
    },
  }),
  defineTool({
    name: "ls",
    keepsIndex: true,
    description: "List a directory: sorted entry names, directories end with /.",
    params: v.string(),
    paramName: "directory",
    result: v.array(v.string()),
    run: async (directory, ctx) => {
      const target = resolvePath(ctx, directory, "ls", 'path is empty; use "." for the working directory')
      const info = await statOrNull(target)
      if (!info) throw new ToolError(`ls: ${directory} does not exist`)
      if (!info.isDirectory()) throw new ToolError(`ls: ${directory} is a file, not a directory`)
      const entries = await readdir(target, { withFileTypes: true })
      const names = await Promise.all(
        entries.map(async (entry) => {
          // A symlink to a directory lists as a directory, as `ls -F` would show it.
          const isDirectory = entry.isDirectory() || (entry.isSymbolicLink() && (await statOrNull(`${target}/${entry.name}`))?.isDirectory())
          return isDirectory ? `${entry.name}/` : entry.name
        }),
      )
      return names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    },
  }),
]

/** Creates the parent directories of target; names the offending path when one is a file. */
async function mkdirFor(target: string, shown: string, tool: string): Promise<void> {
  try {
    await mkdir(dirname(target), { recursive: true })
  } catch (error) {
    if (isCode(error, "EEXIST") || isCode(error, "ENOTDIR")) {
      throw new ToolError(`${tool}: cannot create the parent directory of ${shown}: a file is in the way`)
    }
    throw error
  }
}
