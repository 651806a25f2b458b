import { lstat, readFile, realpath, stat } from "node:fs/promises"
import { dirname, isAbsolute, relative, resolve } from "node:path"
import { applyHunks } from "./apply.ts"
import { hunkProblem, type Problem } from "./report.ts"
import { joinText, splitText } from "./text.ts"
import type { FileChange } from "./types.ts"
import type { FileWrite } from "./commit.ts"
import type { WriteTarget } from "../write-policy.ts"
import { errorMessage } from "../../util/error-message.ts"
import { looksBinary, tooLarge } from "../text-size.ts"

/** A file's state before the patch (read once) or after the changes so far (in memory). */
interface FileState {
  text: string
  mode?: number
}

type Original =
  | { kind: "missing" }
  | { kind: "directory" }
  | { kind: "file"; mode: number; target: string; size: number; owner: { uid: number; gid: number } }
  | { kind: "unreadable"; reason: string }

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/**
 * The patch applied in memory: every change runs against the files as the earlier changes of
 * the same patch left them, and nothing touches the disk until `writes()` is committed.
 */
export class Workspace {
  private readonly originals = new Map<string, Original>()
  private readonly current = new Map<string, FileState | null>()
  private readonly displays = new Map<string, string>()
  /** Files as read from disk, to put back if the patch cannot be written whole. */
  private readonly before = new Map<string, { data: Uint8Array; mode: number }>()
  /** Files the patch changed, as opposed to files only read. */
  private readonly dirty = new Set<string>()
  private readonly summary: Array<{ path: string; letter: "A" | "M" | "D" }> = []
  readonly problems: Problem[] = []

  constructor(private readonly directory: string) {}

  async apply(change: FileChange): Promise<void> {
    if (change.type === "add") return this.add(change.path, change.content, change.mode)
    if (change.type === "delete") return this.remove(change.path)
    let path = change.path
    if (change.fallbackPath !== undefined && !(await this.state(path)) && (await this.exists(change.fallbackPath))) {
      path = change.fallbackPath
    }
    const file = await this.state(path)
    if (file === undefined) return
    if (file === null) return this.problem(`${path}: cannot update: no such file`)
    const result = applyHunks(splitText(file.text), change.hunks)
    if (!result.ok) {
      const lines = splitText(file.text).lines
      for (const failure of result.failures) this.problems.push(hunkProblem(path, lines, failure))
      return
    }
    const text = joinText(result.file)
    const mode = change.mode ?? file.mode
    if (change.moveTo === undefined || this.abs(change.moveTo) === this.abs(path)) {
      this.set(path, { text, mode })
      this.note(path, "M")
      return
    }
    // Like `*** Add File`, a move onto an existing file replaces it (models rely on that).
    const target = await this.state(change.moveTo)
    if (target === undefined) return
    const blocker = await this.fileAbove(change.moveTo)
    if (blocker) return this.problem(`${path}: cannot move to ${change.moveTo}: ${blocker} is a file, not a directory`)
    this.set(path, null)
    this.set(change.moveTo, { text, mode })
    this.renameNote(path, change.moveTo)
  }

  /** `A path` / `M path` / `D path`, one line per file, in the patch's order. */
  summaryText(): string {
    return this.summary.map(({ letter, path }) => `${letter} ${path}`).join("\n")
  }

  /**
   * What to write and delete so that the disk matches the patched files, and every path that
   * touches, in the patch's order, for the sandbox policy to check first.
   */
  async writes(): Promise<{ writes: FileWrite[]; deletes: string[]; targets: WriteTarget[] }> {
    const writes: FileWrite[] = []
    const deletes: string[] = []
    const targets: WriteTarget[] = []
    for (const abs of this.dirty) {
      const state = this.current.get(abs)!
      const original = await this.original(abs)
      const display = this.displays.get(abs)!
      if (state === null) {
        if (original.kind === "file") {
          deletes.push(abs)
          targets.push({ shown: display, path: abs, action: "delete" })
        }
        continue
      }
      const target = original.kind === "file" ? original.target : abs
      const bytes = Buffer.from(state.text, "utf8")
      writes.push({ target, display, data: bytes, mode: state.mode, previous: original.kind === "file" ? this.before.get(abs) : null, owner: original.kind === "file" ? original.owner : undefined })
      targets.push({ shown: display, path: target, action: "write" })
    }
    return { writes, deletes, targets }
  }

  private async add(path: string, content: string, mode?: number): Promise<void> {
    // An existing file is replaced, as the format's origin does, and keeps its permissions.
    const existing = await this.state(path)
    if (existing === undefined) return
    const blocker = await this.fileAbove(path)
    if (blocker) return this.problem(`${path}: cannot add: ${blocker} is a file, not a directory`)
    this.set(path, { text: content, mode: mode ?? existing?.mode })
    this.note(path, existing ? "M" : "A")
  }

  private async remove(path: string): Promise<void> {
    if (!(await this.exists(path))) {
      const original = await this.original(this.abs(path))
      if (original.kind === "directory") return this.problem(`${path}: cannot delete: it is a directory`)
      return this.problem(`${path}: cannot delete: no such file`)
    }
    this.set(path, null)
    this.note(path, "D")
  }

  /** A file where `path` needs a directory, named relative to the working directory. */
  private async fileAbove(path: string): Promise<string | undefined> {
    for (let dir = dirname(this.abs(path)); dir !== dirname(dir); dir = dirname(dir)) {
      const state = this.current.has(dir) ? (this.current.get(dir) ? "file" : "missing") : (await this.original(dir)).kind
      if (state === "directory") return undefined
      if (state === "file") return relative(this.directory, dir) || dir
    }
    return undefined
  }

  private problem(title: string): void {
    this.problems.push({ title, details: [] })
  }

  private abs(path: string): string {
    return isAbsolute(path) ? resolve(path) : resolve(this.directory, path)
  }

  private set(path: string, state: FileState | null): void {
    const abs = this.abs(path)
    this.current.set(abs, state)
    this.dirty.add(abs)
    if (!this.displays.has(abs)) this.displays.set(abs, path)
  }

  private async exists(path: string): Promise<boolean> {
    const abs = this.abs(path)
    if (this.current.has(abs)) return this.current.get(abs) !== null
    return (await this.original(abs)).kind === "file"
  }

  /** The file's content now: null if it does not exist, undefined if it cannot be patched (a problem was noted). */
  private async state(path: string): Promise<FileState | null | undefined> {
    const abs = this.abs(path)
    if (this.current.has(abs)) return this.current.get(abs)!
    const original = await this.original(abs)
    if (original.kind === "missing") return null
    if (original.kind === "directory") return void this.problem(`${path}: is a directory, not a file`)
    if (original.kind === "unreadable") return void this.problem(`${path}: ${original.reason}`)
    const large = tooLarge(original.size)
    if (large) return void this.problem(`${path}: cannot patch: ${large}`)
    const bytes = await readFile(abs)
    if (looksBinary(bytes)) return void this.problem(`${path}: cannot patch a binary file`)
    let text: string
    try {
      text = utf8.decode(bytes)
    } catch {
      return void this.problem(`${path}: cannot patch: the file is not UTF-8 text`)
    }
    const state = { text, mode: original.mode }
    this.before.set(abs, { data: bytes, mode: original.mode })
    this.current.set(abs, state)
    this.displays.set(abs, path)
    return state
  }

  private async original(abs: string): Promise<Original> {
    let original = this.originals.get(abs)
    if (original) return original
    try {
      const info = await stat(abs)
      if (info.isDirectory()) original = { kind: "directory" }
      else {
        // Write through a symlink to its target instead of replacing the link with a file.
        const isLink = (await lstat(abs)).isSymbolicLink()
        original = { kind: "file", mode: info.mode & 0o7777, target: isLink ? await realpath(abs) : abs, size: info.size, owner: { uid: info.uid, gid: info.gid } }
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // ENOTDIR: a parent is a file; fileAbove() reports that where it matters.
      if (code === "ENOENT" || code === "ENOTDIR") original = { kind: "missing" }
      else if (code === "ENAMETOOLONG") original = { kind: "unreadable", reason: "the file name is too long" }
      else if (code === "EACCES" || code === "EPERM") original = { kind: "unreadable", reason: "permission denied" }
      else original = { kind: "unreadable", reason: errorMessage(error) }
    }
    this.originals.set(abs, original)
    return original
  }

  private note(path: string, letter: "A" | "M" | "D"): void {
    const abs = this.abs(path)
    const index = this.summary.findIndex((entry) => this.abs(entry.path) === abs)
    if (index < 0) return void this.summary.push({ path, letter })
    const entry = this.summary[index]!
    if (letter === "D") {
      if (entry.letter === "A") this.summary.splice(index, 1)
      else entry.letter = "D"
    } else if (letter === "A") {
      entry.letter = entry.letter === "D" ? "M" : "A"
    }
  }

  private renameNote(from: string, to: string): void {
    const abs = this.abs(from)
    const entry = this.summary.find((item) => this.abs(item.path) === abs)
    if (entry) {
      entry.path = to
      if (entry.letter !== "A") entry.letter = "M"
    } else this.summary.push({ path: to, letter: "M" })
  }
}
