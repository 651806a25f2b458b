import * as v from "valibot"
import { applyPatch } from "./patch/apply-patch.ts"
import { filesChanged } from "./semantic/live.ts"
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
      // The search index, if open, learns of the edit now, a move's source included.
      const onChanged = (paths: string[]) => filesChanged(ctx.directory, paths)
      return applyPatch(patch, ctx.directory, { signal: ctx.signal, policy: ctx.policy, onChanged })
    },
  }),
]
