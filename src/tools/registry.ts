import * as v from "valibot"
import { ToolError } from "../errors.ts"
import { InvalidParamsError } from "./invalid-params.ts"
import { controlTools } from "./control.ts"
import { renderToolsDts } from "./dts.ts"
import { fsTools } from "./fs.ts"
import { patchTools } from "./patch.ts"
import { searchTools } from "./search.ts"
import { shellTools } from "./shell.ts"
import { todoTools } from "./todos.ts"
import type { Tool, ToolContext } from "./tool.ts"
import { webTools } from "./web.ts"

export { formatIssues, InvalidParamsError } from "./invalid-params.ts"

/** Every sandbox tool, in the order the model sees them. Adding a tool: one file, one line here. */
export const tools: readonly Tool[] = [
  ...fsTools,
  ...patchTools,
  ...searchTools,
  ...shellTools,
  ...webTools,
  ...todoTools,
  ...controlTools,
]

const byName = new Map(tools.map((tool) => [tool.name, tool]))

export const toolNames: readonly string[] = tools.map((tool) => tool.name)

export function findTool(name: string): Tool | undefined {
  return byName.get(name)
}

let dts: string | undefined
/** The declarations the model sees, generated once from the schemas. */
export function toolsDts(): string {
  return (dts ??= renderToolsDts(tools))
}

/** Validates the parameters and runs the tool. Rejects with ToolError carrying the tool's name. */
export async function callTool(name: string, params: unknown, ctx: ToolContext): Promise<unknown> {
  const tool = byName.get(name)
  if (!tool) throw new ToolError(`unknown tool "${name}"; known tools: ${toolNames.join(", ")}`)
  const parsed = v.safeParse(tool.params, params)
  if (!parsed.success) throw new InvalidParamsError(name, parsed.issues)
  try {
    return await tool.run(parsed.output, ctx)
  } catch (error) {
    if (error instanceof ToolError) {
      if (error.message.startsWith(`${name}: `)) throw error
      throw new ToolError(`${name}: ${error.message}`)
    }
    const message = error instanceof Error ? error.message : String(error)
    throw new ToolError(`${name}: ${message}`)
  }
}
