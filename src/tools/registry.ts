import { controlTools } from "./control.ts"
import { fsTools } from "./fs.ts"
import { imageTools } from "./images.ts"
import { patchTools } from "./patch.ts"
import { searchTools } from "./search.ts"
import { semanticTools } from "./semantic.ts"
import { shellTools } from "./shell.ts"
import { skillTool } from "./skill.ts"
import { todoTools } from "./todos.ts"
import type { Tool, ToolContext } from "./tool.ts"
import { ToolRegistry } from "./tool-registry.ts"
import { webTools } from "./web.ts"

/** Every built-in sandbox tool, in the order the model sees them. A new tool: one file, one line here. */
export const builtinTools: readonly Tool[] = [
  ...fsTools,
  ...imageTools,
  ...patchTools,
  ...searchTools,
  ...semanticTools,
  ...shellTools,
  ...webTools,
  ...todoTools,
  ...controlTools,
  skillTool,
]

/** The built-in tools, without `search` when it is off (--no-search: no declaration, supportsSearch false). */
export function builtinToolsFor(options: { search: boolean }): readonly Tool[] {
  return options.search ? builtinTools : builtinTools.filter((tool) => tool.name !== "search")
}

let builtin: ToolRegistry | undefined
/** The registry of the built-in tools, made on first use. */
export function builtinRegistry(): ToolRegistry {
  return (builtin ??= new ToolRegistry(builtinTools))
}

/** Calls a built-in tool (tests and benchmarks call tools without an executor). */
export function callTool(name: string, params: unknown, ctx: ToolContext): Promise<unknown> {
  return builtinRegistry().call(name, params, ctx)
}

export { ToolRegistry }
