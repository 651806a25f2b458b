import type { HunkFailure } from "./apply.ts"

const MAX_SHOWN = 30

/** One thing that keeps the patch from applying: a title line, then details for the model. */
export interface Problem {
  title: string
  details: string[]
}

/** The error text: every problem, so the model can fix them all in one retry. */
export function formatProblems(problems: readonly Problem[]): string {
  if (problems.length === 1) {
    const [problem] = problems as [Problem]
    return [`${problem.title}; no file was changed.`, ...problem.details].join("\n")
  }
  const blocks = problems.map((problem) => [problem.title, ...problem.details].join("\n"))
  return `${problems.length} problems; no file was changed.\n\n${blocks.join("\n\n")}`
}

/** Describes a hunk that was not found: its lines, then the region of the file most like them. */
export function hunkProblem(path: string, fileLines: readonly string[], failure: HunkFailure): Problem {
  const anchors = failure.anchors.length ? ` (@@ ${failure.anchors.join(" @@ ")})` : ""
  const details = failure.old.length ? ["Lines not found:", ...shown(failure.old.map((line) => `  ${line}`))] : []
  if (failure.missingAnchor !== undefined) {
    const either = failure.old.length ? " either" : ""
    details.push(`The @@ context line "${failure.missingAnchor}" was not found${either}.`)
  }
  if (failure.alreadyAt !== undefined) {
    details.push(`The hunk's new lines are already at line ${failure.alreadyAt + 1}: was this patch applied before?`)
  }
  if (failure.closest !== undefined) {
    const count = Math.min(Math.max(failure.old.length, 1), fileLines.length - failure.closest)
    const region = fileLines.slice(failure.closest, failure.closest + count)
    const first = failure.closest + 1
    const last = failure.closest + region.length
    const width = String(last).length
    details.push(first === last ? `Closest region of ${path}, line ${first}:` : `Closest region of ${path}, lines ${first}-${last}:`)
    const numbered = region.map((line, i) => `  ${String(first + i).padStart(width)} | ${line}`)
    details.push(...shown(numbered))
  } else {
    details.push(fileLines.length === 0 ? `${path} is empty.` : `Nothing in ${path} resembles these lines.`)
  }
  return { title: `${path}: hunk ${failure.number} of ${failure.total} did not match${anchors}`, details }
}

function shown(lines: readonly string[]): string[] {
  if (lines.length <= MAX_SHOWN) return [...lines]
  return [...lines.slice(0, MAX_SHOWN), `  … ${lines.length - MAX_SHOWN} more lines`]
}
