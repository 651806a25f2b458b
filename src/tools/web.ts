import * as v from "valibot"
import { defineTool, type Tool } from "./tool.ts"
import { DEFAULT_MAX_CHARACTERS, DEFAULT_RESULTS, exaSearch } from "./web/exa.ts"
import { fetchMarkdown } from "./web/fetch-markdown.ts"

export const webTools: Tool[] = [
  defineTool({
    name: "webSearch",
    description: "Search the web (Exa; needs EXA_API_KEY); results as markdown with title, URL, date and text.",
    params: v.object({
      query: v.pipe(v.string(), v.minLength(1)),
      numResults: v.pipe(
        v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(25))),
        v.description(`default ${DEFAULT_RESULTS}`),
      ),
      maxCharacters: v.pipe(
        v.optional(v.pipe(v.number(), v.integer(), v.minValue(100))),
        v.description(`text per result, default ${DEFAULT_MAX_CHARACTERS}`),
      ),
    }),
    result: v.string(),
    run: (params, ctx) => exaSearch(params, process.env, ctx.signal),
  }),
  defineTool({
    name: "fetchMarkdown",
    description: "Fetch a URL; HTML comes back as markdown, text, markdown and JSON as they are.",
    params: v.pipe(v.string(), v.minLength(1)),
    paramName: "url",
    result: v.string(),
    run: (url, ctx) => fetchMarkdown(url, { signal: ctx.signal }),
  }),
]
