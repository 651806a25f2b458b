import * as v from "valibot"
import { applyPatch } from "./patch/apply-patch.ts"
import { filesChanged, indexMayBeStale } from "./semantic/live.ts"
import { defineTool, type Tool } from "./tool.ts"

export const patchTools: Tool[] = [
  defineTool({
    name: "applyPatch",
    keepsIndex: true,
    description:
      "Edit files with one patch (`*** Begin Patch` format, git diff or unified diff): add, update, move and delete several files, all or nothing. Returns `A|M|D path` lines.",
    params: v.string(),
    paramName: "patch",
    result: v.string(),
    run: async (patch, ctx) => {
      const summary = await applyPatch(patch, ctx.directory, { signal: ctx.signal, policy: ctx.policy })
      // The search index, if open, learns of the edit now (`A|M|D path` lines).
      await filesChanged(ctx.directory, summary.split("\n").filter((line) => line.length > 2).map((line) => line.slice(2)))
      // The summary names where a moved file went, not where it was: let the next search scan.
      if (/^\*\*\* Move to:|^rename from /m.test(patch)) indexMayBeStale()
      return summary
    },
  }),
]
