import { randomHex } from "../../util/random-hex.ts"
import { chmod, mkdir, rename, rm, unlink, writeFile } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { ToolError } from "../../errors.ts"
import { errorMessage } from "../../util/error-message.ts"
import { keepOwner } from "../keep-owner.ts"

export interface FileWrite {
  /** Absolute path written (a symlink's target for an existing link). */
  target: string
  /** Path as the patch named it, for messages. */
  display: string
  data: Uint8Array
  /** Permission bits to set; new files otherwise get the usual default. */
  mode?: number
  /** The file as it was, to put back if a later file cannot be written; null for a new file. */
  previous?: { data: Uint8Array; mode: number } | null
  /** The replaced file's owner, kept when root writes it. */
  owner?: { uid: number; gid: number }
}

/**
 * Writes every file atomically: all temp files first (next to their targets, so the rename
 * stays on one filesystem), then the renames, then the deletions. If a temp file cannot be
 * written, nothing has changed yet and everything created is removed again.
 */
/** Why writing `path` failed, when the caller knows better than the error code (a sandbox's refusal). */
export type Explain = (error: unknown, path: string) => Promise<string | undefined>

export async function commitChanges(writes: readonly FileWrite[], deletes: readonly string[], explain: Explain = async () => undefined): Promise<void> {
  const reason = async (error: unknown, path: string) => (await explain(error, path)) ?? codeReason(error)
  const temps: Array<{ temp: string; write: FileWrite }> = []
  const createdDirs: string[] = []
  /** The directories made for new files, deepest first. */
  const removeCreatedDirs = async () => {
    for (const dir of [...createdDirs].reverse()) await rm(dir, { recursive: true, force: true }).catch(() => {})
  }
  let filled = 0
  try {
    for (const write of writes) {
      const dir = dirname(write.target)
      const created = await mkdir(dir, { recursive: true })
      if (created) createdDirs.push(created)
      const temp = tempBeside(write.target)
      // Counted before it is written: a write cut short by a full disk leaves a part to remove.
      temps.push({ temp, write })
      await writeFile(temp, write.data, { flag: "wx" }).catch((error) => {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") temps.pop() // not ours to remove
        throw error
      })
      filled++
      if (write.owner) await keepOwner(temp, write.owner)
      if (write.mode !== undefined) await chmod(temp, write.mode)
    }
  } catch (error) {
    // Clean-up failures are not the news: the write's own failure is.
    await Promise.all(temps.map(({ temp }) => rm(temp, { force: true }).catch(() => {})))
    await removeCreatedDirs()
    const failed = writes[filled] ?? writes[writes.length - 1]
    throw new ToolError(`could not write ${failed?.display}: ${await reason(error, failed?.target ?? "")}; no file was changed`)
  }

  const done: FileWrite[] = []
  for (const [i, { temp, write }] of temps.entries()) {
    try {
      await rename(temp, write.target)
      done.push(write)
    } catch (error) {
      // A file the rename cannot replace (immutable, a read-only mount): put the earlier ones back.
      await Promise.all(temps.slice(i).map(({ temp }) => rm(temp, { force: true }).catch(() => {})))
      const kept = await restore(done)
      if (kept.length === 0) await removeCreatedDirs()
      const written = kept.length ? `only ${kept.join(", ")} was written` : "no file was changed"
      throw new ToolError(`could not write ${write.display}: ${await reason(error, write.target)}; ${written}`)
    }
  }
  for (const path of deletes) {
    try {
      await unlink(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        throw new ToolError(`could not delete ${path}: ${await reason(error, path)}; the other changes were written`)
      }
    }
  }
}

/** A temporary file beside `target`, in the same directory (so that rename() replaces it in one step). */
function tempBeside(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomHex(4)}.clanka-tmp`)
}

/** Puts written files back as they were (a new file is removed); answers those it could not. */
async function restore(done: readonly FileWrite[]): Promise<string[]> {
  const kept: string[] = []
  for (const write of done) {
    try {
      if (write.previous === null) {
        await unlink(write.target)
        continue
      }
      if (write.previous === undefined) throw new Error("not known")
      const temp = tempBeside(write.target)
      try {
        await writeFile(temp, write.previous.data, { flag: "wx" })
        if (write.owner) await keepOwner(temp, write.owner)
        await chmod(temp, write.previous.mode)
        await rename(temp, write.target)
      } catch (error) {
        await rm(temp, { force: true }).catch(() => {})
        throw error
      }
    } catch {
      kept.push(write.display)
    }
  }
  return kept
}

function codeReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === "EACCES" || code === "EPERM") return "permission denied"
  if (code === "ENOTDIR") return "a parent path is a file, not a directory"
  if (code === "ENOSPC") return "no space left on the device"
  if (code === "EISDIR") return "it is a directory"
  return errorMessage(error)
}
