import { builtinManifest } from "./builtin-manifest.macro.ts" with { type: "macro" }
import type { Tool, ToolContext, ToolSet } from "./tool.ts"
import type { ToolRegistry } from "./tool-registry.ts"

/** Rendered when clanka is built: loading the tools' modules and rendering this costs ~5 ms. */
const MANIFEST = builtinManifest()

/**
 * The built-in tools (without `search` when it is off), known by their names and declarations
 * until the first call, or `load()`, loads their modules: an executor answers its first
 * capabilities request without them, and loads them while its sandbox worker starts.
 */
export class BuiltinTools implements ToolSet {
  readonly names: readonly string[]
  readonly spread: readonly string[]
  readonly dts: string
  private registry: Promise<ToolRegistry> | undefined

  constructor(private readonly search: boolean) {
    const manifest = search ? MANIFEST.search : MANIFEST.noSearch
    this.names = manifest.names
    this.spread = manifest.spread
    this.dts = manifest.dts
  }

  has(name: string): boolean {
    return this.names.includes(name)
  }

  load(): Promise<ToolRegistry> {
    return (this.registry ??= import("./registry.ts").then(({ builtinRegistry }) => builtinRegistry(this.search)))
  }

  async tools(): Promise<readonly Tool[]> {
    return (await this.load()).tools
  }

  async call(name: string, params: unknown, ctx: ToolContext): Promise<unknown> {
    return (await this.load()).call(name, params, ctx)
  }
}
