import { ToolError } from "../../errors.ts"
import { HUNK_RANGE, hunkHint, hunkLine } from "./hunk.ts"
import type { FileChange, Hunk } from "./types.ts"

const DEV_NULL = "/dev/null"

/** What the headers of one file's section say, before its hunks. */
interface Section {
  gitOld?: string
  gitNew?: string
  oldPath?: string
  newPath?: string
  isNew: boolean
  isDeleted: boolean
  renameFrom?: string
  renameTo?: string
  mode?: number
  binary: boolean
  git: boolean
  hunks: Hunk[]
}

/**
 * Parses git diffs and plain unified diffs, any number of files. Hunk line counts are not
 * trusted: a hunk runs until the next header, so a model's miscounted `@@ -a,b +c,d @@` still works.
 */
export function parseUnifiedDiff(lines: string[]): FileChange[] {
  const changes: FileChange[] = []
  let section: Section | undefined
  const finish = () => {
    if (section) changes.push(toChange(section))
    section = undefined
  }
  const isFileHeader = (i: number) =>
    (lines[i]!.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ ")) || isContextStyleHeader(lines, i)

  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (line.startsWith("diff --git ")) {
      finish()
      section = newSection(true)
      const paths = splitGitPaths(line.slice("diff --git ".length))
      if (paths) [section.gitOld, section.gitNew] = paths
      i++
      continue
    }
    if (isFileHeader(i)) {
      // A `---`/`+++` pair opens a new file unless it belongs to the git header just read.
      if (!section || section.oldPath !== undefined || section.hunks.length > 0 || !section.git) {
        finish()
        section = newSection(false)
      }
      section.oldPath = headerPath(line.slice(4))
      section.newPath = headerPath(lines[i + 1]!.slice(4))
      i += 2
      continue
    }
    if (section?.git && section.hunks.length === 0 && section.oldPath === undefined) {
      if (readGitHeader(section, line)) {
        i++
        continue
      }
    }
    if (line.startsWith("@@") && section) {
      i = readHunk(lines, i, section.hunks, isFileHeader)
      continue
    }
    i++
  }
  finish()
  return changes
}

/**
 * `*** OLD` then `--- NEW`, the header of a context diff (diff -c), followed by unified `@@` hunks:
 * models mix the two. Only with an `@@` line next, so hunk lines are never taken for it.
 */
function isContextStyleHeader(lines: string[], i: number): boolean {
  return lines[i]!.startsWith("*** ") && (lines[i + 1] ?? "").startsWith("--- ") && (lines[i + 2] ?? "").startsWith("@@")
}

function newSection(git: boolean): Section {
  return { isNew: false, isDeleted: false, binary: false, git, hunks: [] }
}

/** Extended git header lines (modes, renames, index). Returns false for anything else. */
function readGitHeader(section: Section, line: string): boolean {
  let match: RegExpExecArray | null
  if ((match = /^new file mode (\d+)/.exec(line))) {
    section.isNew = true
    section.mode = parseInt(match[1]!, 8) & 0o777
  } else if (line.startsWith("deleted file mode ")) {
    section.isDeleted = true
  } else if ((match = /^new mode (\d+)/.exec(line))) {
    section.mode = parseInt(match[1]!, 8) & 0o777
  } else if ((match = /^rename from (.+)$/.exec(line))) {
    section.renameFrom = unquote(match[1]!)
  } else if ((match = /^rename to (.+)$/.exec(line))) {
    section.renameTo = unquote(match[1]!)
  } else if (line.startsWith("Binary files ") || line === "GIT binary patch") {
    section.binary = true
  } else if ((match = /^copy (from|to) /.exec(line))) {
    throw new ToolError("git copy patches are not supported; use a new file (`new file mode`) instead")
  } else if (!/^(old mode|index|similarity index|dissimilarity index) /.test(line)) {
    return false
  }
  return true
}

/** Reads one `@@` hunk starting at `start`; returns the index of the first line after it. */
function readHunk(lines: string[], start: number, hunks: Hunk[], isFileHeader: (i: number) => boolean): number {
  const header = HUNK_RANGE.exec(lines[start]!)
  const hunk: Hunk = { anchors: [], lines: [], endOfFile: false }
  if (header) hunk.hint = hunkHint(header)
  let i = start + 1
  while (i < lines.length) {
    const line = lines[i]!
    // Also stop at a closing markdown fence: prose after a fenced diff is not part of the hunk.
    if (line.startsWith("@@") || /^(diff |Index: |={20,}$|```)/.test(line) || isFileHeader(i)) break
    if (line.startsWith("\\")) {
      // `\ No newline at end of file` refers to the line before it.
      const previous = hunk.lines[hunk.lines.length - 1]
      if (previous?.op !== "+") hunk.oldNoNewline = true
      if (previous?.op !== "-") hunk.newNoNewline = true
    } else {
      hunk.lines.push(hunkLine(line))
    }
    i++
  }
  hunks.push(hunk)
  return i
}

function toChange(section: Section): FileChange {
  const { git } = section
  const oldRaw = section.renameFrom ?? section.oldPath ?? section.gitOld
  const newRaw = section.renameTo ?? section.newPath ?? section.gitNew
  const isNew = section.isNew || oldRaw === DEV_NULL
  const isDeleted = section.isDeleted || newRaw === DEV_NULL
  // git always writes a/ and b/ prefixes unless told not to; strip them only when both sides agree.
  const prefixed = (path: string | undefined, prefix: string) => path === undefined || path === DEV_NULL || path.startsWith(prefix)
  const fromRename = section.renameFrom !== undefined
  const strip =
    prefixed(section.oldPath ?? section.gitOld, "a/") && prefixed(section.newPath ?? section.gitNew, "b/")
  const oldPath = fromRename ? section.renameFrom : stripPrefix(oldRaw, strip, "a/")
  const newPath = section.renameTo ?? stripPrefix(newRaw, strip, "b/")
  const name = (isNew ? newPath : oldPath) ?? newPath
  if (!name || name === DEV_NULL) throw new ToolError("a file section of the diff names no file (expected `--- PATH` and `+++ PATH`)")
  if (section.binary) throw new ToolError(`${name}: binary patches are not supported`)

  if (isNew) {
    const content: string[] = []
    let noNewline = false
    for (const hunk of section.hunks) {
      for (const line of hunk.lines) if (line.op !== "-") content.push(line.text)
      noNewline ||= hunk.newNoNewline === true
    }
    const text = content.length ? content.join("\n") + (noNewline ? "" : "\n") : ""
    return { type: "add", path: name, content: text, mode: section.mode }
  }
  if (isDeleted) return { type: "delete", path: name }
  if (section.hunks.every((hunk) => hunk.lines.length === 0) && section.mode === undefined && !fromRename) {
    throw new ToolError(`${name}: the diff has no hunks (expected "@@ -a,b +c,d @@" and lines starting with " ", "-" or "+")`)
  }
  const update: FileChange = { type: "update", path: name, hunks: section.hunks, mode: section.mode }
  if (newPath && newPath !== name) {
    // git names a rename explicitly; a plain diff of `x.orig` against `x` patches whichever exists.
    if (git) update.moveTo = newPath
    else {
      update.path = newPath
      update.fallbackPath = name
    }
  }
  return update
}

function stripPrefix(path: string | undefined, strip: boolean, prefix: string): string | undefined {
  if (path === undefined || path === DEV_NULL || !strip) return path
  return path.startsWith(prefix) ? path.slice(prefix.length) : path
}

/** The path of a `---`/`+++` line: unquoted, without the timestamp diff(1) appends after a tab. */
function headerPath(raw: string): string {
  const path = raw.split("\t")[0]!.trimEnd()
  return unquote(path)
}

/** `diff --git a/x b/x`: splits the two paths, also when they contain spaces or quotes. */
function splitGitPaths(rest: string): [string, string] | undefined {
  if (rest.startsWith('"')) {
    const end = closingQuote(rest)
    if (end > 0) return [unquote(rest.slice(0, end + 1)), unquote(rest.slice(end + 1).trim())]
  }
  // Unquoted: the paths are usually equal, so look for the split that makes them so.
  const half = (rest.length - 1) / 2
  if (Number.isInteger(half) && rest[half] === " ") {
    const a = rest.slice(0, half)
    const b = rest.slice(half + 1)
    if (a.replace(/^a\//, "") === b.replace(/^b\//, "")) return [a, b]
  }
  const split = rest.indexOf(" b/")
  if (split > 0) return [rest.slice(0, split), rest.slice(split + 1)]
  const space = rest.indexOf(" ")
  return space > 0 ? [rest.slice(0, space), rest.slice(space + 1)] : undefined
}

function closingQuote(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === "\\") i++
    else if (text[i] === '"') return i
  }
  return -1
}

/** git quotes unusual paths C-style, with octal escapes for UTF-8 bytes. */
export function unquote(path: string): string {
  if (!(path.length >= 2 && path.startsWith('"') && path.endsWith('"'))) return path
  const bytes: number[] = []
  const body = path.slice(1, -1)
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, "\\": 92, a: 7, b: 8, f: 12, v: 11 }
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!
    if (ch !== "\\") {
      bytes.push(...Buffer.from(ch))
      continue
    }
    const next = body[i + 1] ?? ""
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1))
    if (octal) {
      bytes.push(parseInt(octal[0], 8))
      i += 3
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0))
      i++
    }
  }
  return Buffer.from(bytes).toString("utf8")
}
