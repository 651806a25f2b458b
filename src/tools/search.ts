import * as v from "valibot"
import { builtinSearch } from "./search/builtin.ts"
import { globFiles } from "./search/glob.ts"
import type { SearchRequest } from "./search/results.ts"
import { ripgrepSearch } from "./search/ripgrep.ts"
import { defineTool, type Tool, type ToolContext } from "./tool.ts"

export type SearchEngine = "rg" | "builtin"

export const DEFAULT_MAX_LINES = 500

/**
 * The engine rg() uses: the `rg` binary when it is on PATH, the built-in search otherwise.
 * CLANKA_SEARCH_ENGINE=rg|builtin forces one (tests run both on the same tree).
 */
export function chooseSearchEngine(env: Record<string, string | undefined> = process.env): SearchEngine {
  const forced = env.CLANKA_SEARCH_ENGINE
  if (forced === "rg" || forced === "builtin") return forced
  return Bun.which("rg", { PATH: env.PATH ?? "" }) ? "rg" : "builtin"
}

export interface SearchOptions {
  pattern: string
  glob?: string | string[]
  filesOnly?: boolean
  maxLines?: number
}

/** Searches ctx.directory with the given engine; the text rg() returns. */
export async function search(
  options: SearchOptions,
  ctx: Pick<ToolContext, "directory" | "signal" | "processes">,
  engine: SearchEngine = chooseSearchEngine(),
): Promise<string> {
  const request: SearchRequest = {
    pattern: options.pattern,
    globs: options.glob === undefined ? [] : [options.glob].flat(),
    filesOnly: options.filesOnly ?? false,
    maxLines: options.maxLines ?? DEFAULT_MAX_LINES,
  }
  return engine === "rg" ? ripgrepSearch(request, ctx) : builtinSearch(request, ctx.directory, ctx.signal)
}

const RgParams = v.object({
  pattern: v.pipe(v.string(), v.description("regular expression, ripgrep syntax")),
  glob: v.pipe(
    v.optional(v.union([v.string(), v.array(v.string())])),
    v.description('only files matching, e.g. "*.ts", "src/**", "!*.test.ts"'),
  ),
  filesOnly: v.pipe(v.optional(v.boolean()), v.description("list the matching files only")),
  maxLines: v.pipe(
    v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    v.description(`cap on output lines (default ${DEFAULT_MAX_LINES})`),
  ),
})

export const searchTools: Tool[] = [
  defineTool({
    name: "rg",
    keepsIndex: true,
    description:
      "Search file contents with a regex (respects .gitignore, skips hidden and binary files); matches grouped by file as `line:text`.",
    params: RgParams,
    result: v.string(),
    run: (params, ctx) => search(params, ctx),
  }),
  defineTool({
    name: "glob",
    keepsIndex: true,
    // No "*" followed by "/" in descriptions: it would end the declaration's comment.
    description: "Sorted relative paths of files matching a glob: * within a name, ** across directories (src/**, *.{js,json}); respects .gitignore.",
    params: v.string(),
    paramName: "pattern",
    result: v.array(v.string()),
    run: (pattern, ctx) => globFiles(pattern, ctx.directory, ctx.signal),
  }),
]
