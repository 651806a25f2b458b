import * as v from "valibot"
import { applyPatch } from "./patch/apply-patch.ts"
import { defineTool, type Tool } from "./tool.ts"

export const patchTools: Tool[] = [
  defineTool({
    name: "applyPatch",
    description:
      "Edit files with one patch (`*** Begin Patch` format, git diff or unified diff): add, update, move and delete several files, all or nothing. Returns `A|M|D path` lines.",
    params: v.string(),
    paramName: "patch",
    result: v.string(),
    run: (patch, ctx) => applyPatch(patch, ctx.directory, { signal: ctx.signal, policy: ctx.policy }),
  }),
]
