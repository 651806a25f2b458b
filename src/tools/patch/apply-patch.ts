import { type SandboxPolicy, UNRESTRICTED } from "../../contract.ts"
import { CancelledError, ToolError } from "../../errors.ts"
import { checkWritable, refusedBySandbox } from "../write-policy.ts"
import { commitChanges } from "./commit.ts"
import { parsePatch } from "./parse.ts"
import { formatProblems } from "./report.ts"
import { Workspace } from "./workspace.ts"

export interface ApplyOptions {
  signal?: AbortSignal
  /** What may be written (default: anything); every target is checked before anything is written. */
  policy?: SandboxPolicy
  /** Told the absolute paths written and removed (a move's source among them), once committed. */
  onChanged?(paths: string[]): Promise<void>
}

/**
 * Applies a patch to files under `directory`, all or nothing: every change is parsed and
 * verified in memory first; only when all of it applies, and the sandbox policy allows every
 * file it writes or deletes, are the files written.
 * Returns one `A path` / `M path` / `D path` line per file.
 */
export async function applyPatch(patch: string, directory: string, options: ApplyOptions = {}): Promise<string> {
  const { signal, policy = UNRESTRICTED } = options
  const changes = parsePatch(patch)
  const workspace = new Workspace(directory)
  for (const change of changes) await workspace.apply(change)
  if (workspace.problems.length > 0) throw new ToolError(formatProblems(workspace.problems))
  const { writes, deletes, targets } = await workspace.writes()
  await checkWritable({ directory, policy }, "applyPatch", targets, "; no file was changed")
  if (signal?.aborted) throw new CancelledError("cancelled; no file was changed")
  await commitChanges(writes, deletes, (error, path) => refusedBySandbox(policy, error, path))
  await options.onChanged?.([...writes.map((write) => write.target), ...deletes])
  return workspace.summaryText()
}
