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

const builtin = new Map<boolean, ToolRegistry>()
/** The registry of the built-in tools (without `search` when it is off), made on first use. */
export function builtinRegistry(search = true): ToolRegistry {
  let registry = builtin.get(search)
  if (!registry) builtin.set(search, (registry = new ToolRegistry(builtinToolsFor({ search }))))
  return registry
}

/** Calls a built-in tool (tests and benchmarks call tools without an executor). */
export function callTool(name: string, params: unknown, ctx: ToolContext): Promise<unknown> {
  return builtinRegistry().call(name, params, ctx)
}
