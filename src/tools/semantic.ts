import * as v from "valibot"
import { ToolError } from "../errors.ts"
import { defineTool, type Tool } from "./tool.ts"

export const DEFAULT_LIMIT = 5
const MAX_LIMIT = 30

const SearchOptions = v.object({
  limit: v.pipe(v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_LIMIT))), v.description(`chunks to return, default ${DEFAULT_LIMIT}`)),
  glob: v.pipe(v.optional(v.union([v.string(), v.array(v.string())])), v.description('only files matching, e.g. "src/**", "!*.test.ts"')),
})
export type SearchToolOptions = v.InferOutput<typeof SearchOptions>

/**
 * search(query, options?): the most relevant chunks of the workspace for a description in words.
 * The index (bun:sqlite) loads on the first call, never at start-up.
 */
export const semanticTools: Tool[] = [
  defineTool({
    name: "search",
    keepsIndex: true,
    description: "Find code by describing it in words; the best chunks as `path:start-end` then their lines.",
    params: v.tuple([v.pipe(v.string(), v.minLength(1)), v.optional(SearchOptions)]),
    argNames: ["query", "options"],
    result: v.string(),
    run: async ([query, options], ctx) => {
      if (query.trim() === "") throw new ToolError("search: the query is empty; describe what you are looking for")
      const { runSearch } = await import("./semantic/search.ts")
      return runSearch(query, options ?? {}, ctx)
    },
  }),
]
