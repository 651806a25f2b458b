import * as v from "valibot"
import { InvalidParamsError, ToolError, UnknownToolError } from "../errors.ts"
import { renderToolsDts } from "./dts.ts"
import { toolCalled } from "./semantic/live.ts"
import type { Tool, ToolContext, ToolSet } from "./tool.ts"
import { errorMessage } from "../util/error-message.ts"

/**
 * The tools one executor was handed: what its sandbox gets as globals, the declarations the model
 * sees, and the way calls reach them.
 */
export class ToolRegistry implements ToolSet {
  readonly names: readonly string[]
  /** Tools that take several arguments (Tool.argNames). */
  readonly spread: readonly string[]
  private readonly byName: ReadonlyMap<string, Tool>
  private declarations: string | undefined

  /**
   * `extraDeclarations`: declarations of the namespaced tools (`mcp.server.tool`), which are
   * declared by their namespace rather than one by one.
   */
  constructor(
    readonly tools: readonly Tool[],
    private readonly extraDeclarations = "",
  ) {
    this.byName = new Map(tools.map((tool) => [tool.name, tool]))
    if (this.byName.size !== tools.length) {
      const duplicate = tools.find((tool, index) => tools.findIndex((other) => other.name === tool.name) !== index)
      throw new Error(`two tools are named "${duplicate?.name}"`)
    }
    this.names = tools.map((tool) => tool.name)
    this.spread = tools.filter((tool) => tool.argNames).map((tool) => tool.name)
  }

  has(name: string): boolean {
    return this.byName.has(name)
  }

  /** The declarations the model sees, generated once from the schemas. */
  get dts(): string {
    this.declarations ??= renderToolsDts(this.tools)
    return this.extraDeclarations ? `${this.declarations}\n${this.extraDeclarations}` : this.declarations
  }

  /** Validates the parameters and runs the tool. Rejects with ToolError carrying the tool's name. */
  async call(name: string, params: unknown, ctx: ToolContext): Promise<unknown> {
    const tool = this.byName.get(name)
    if (!tool) throw new UnknownToolError(name, this.names)
    if (tool.argNames && !Array.isArray(params)) params = [params]
    const parsed = v.safeParse(tool.params, params)
    if (!parsed.success) throw new InvalidParamsError(name, parsed.issues)
    // Before and after: the search index trusts itself only while no such tool has run (live.ts).
    toolCalled(tool)
    try {
      return await tool.run(parsed.output, ctx)
    } catch (error) {
      if (error instanceof ToolError) {
        // Already named: `writeFile: …`, or a sentence about it (`mcp.x is not available: …`).
        if (error.message.startsWith(`${name}: `) || error.message.startsWith(`${name} `)) throw error
        throw new ToolError(`${name}: ${error.message}`)
      }
      const message = errorMessage(error)
      throw new ToolError(`${name}: ${message}`)
    } finally {
      toolCalled(tool)
    }
  }
}
