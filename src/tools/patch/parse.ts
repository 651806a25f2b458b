import { ToolError } from "../../errors.ts"
import { parseBeginPatch } from "./begin-patch.ts"
import type { FileChange } from "./types.ts"
import { parseUnifiedDiff } from "./unified.ts"

/**
 * Reads a patch in any accepted format: `*** Begin Patch`, git diff or plain unified diff.
 * Wrappers models like to add (a shell heredoc, a markdown fence) are removed first.
 */
export function parsePatch(patch: string): FileChange[] {
  const lines = unwrap(patch.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line)))
  // The newline(s) ending the patch text are not empty context lines.
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop()
  const changes = isBeginPatch(lines) ? parseBeginPatch(lines) : parseUnifiedDiff(lines)
  if (changes.length === 0) {
    throw new ToolError(
      "the patch contains no file changes; expected `*** Begin Patch` with `*** Update File: PATH` sections, " +
        "a git diff, or a unified diff with `--- PATH` / `+++ PATH` headers",
    )
  }
  return changes
}

function isBeginPatch(lines: string[]): boolean {
  return lines.some((line) => /^\s*\*\*\* (Begin Patch|(Add|Update|Delete) File:)/.test(line))
}

/**
 * Blanks out an enclosing heredoc (`cat <<'EOF'` … `EOF`) or markdown code fence. The lines
 * become empty rather than removed, so error messages still count lines of the patch as given.
 */
function unwrap(lines: string[]): string[] {
  const first = lines.findIndex((line) => line.trim() !== "")
  if (first < 0) return lines
  const opening = lines[first]!
  const heredoc = /<<-?\s*(['"]?)([A-Za-z_][\w-]*)\1/.exec(opening)
  let closing: (line: string) => boolean
  if (heredoc && !/^\s*(\*\*\*|diff |--- |\+\+\+ |@@)/.test(opening)) closing = (line) => line.trim() === heredoc[2]
  else if (/^\s*```/.test(opening)) closing = (line) => line.trim() === "```"
  else return lines
  let end = lines.length
  for (let i = lines.length - 1; i > first; i--) {
    if (closing(lines[i]!)) {
      end = i
      break
    }
    // A fence must close the text; a heredoc delimiter may be followed by more shell.
    if (!heredoc && lines[i]!.trim() !== "") break
  }
  return lines.map((line, i) => (i > first && i < end ? line : ""))
}
