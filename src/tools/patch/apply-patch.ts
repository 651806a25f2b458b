import { CancelledError, ToolError } from "../../errors.ts"
import { commitChanges } from "./commit.ts"
import { parsePatch } from "./parse.ts"
import { formatProblems } from "./report.ts"
import { Workspace } from "./workspace.ts"

/**
 * Applies a patch to files under `directory`, all or nothing: every change is parsed and
 * verified in memory first; only when all of it applies are the files written.
 * Returns one `A path` / `M path` / `D path` line per file.
 */
export async function applyPatch(patch: string, directory: string, signal?: AbortSignal): Promise<string> {
  const changes = parsePatch(patch)
  const workspace = new Workspace(directory)
  for (const change of changes) await workspace.apply(change)
  if (workspace.problems.length > 0) throw new ToolError(formatProblems(workspace.problems))
  const { writes, deletes } = await workspace.writes()
  if (signal?.aborted) throw new CancelledError("cancelled; no file was changed")
  await commitChanges(writes, deletes)
  return workspace.summaryText()
}
