import { builtinTools } from "../registry.ts"
import type { Tool } from "../tool.ts"

/** The built-in tools without `search` (--no-search): no declaration, supportsSearch false. */
export function withoutSearch(): Tool[] {
  return builtinTools.filter((tool) => tool.name !== "search")
}
