import * as v from "valibot"
import { defineTool, type Tool } from "./tool.ts"
import { WebSearchParamsSchema } from "./agent-services.ts"
import { DEFAULT_MAX_CHARACTERS, DEFAULT_RESULTS } from "./web/exa.ts"
import { fetchMarkdown } from "./web/fetch-markdown.ts"

export const webTools: Tool[] = [
  defineTool({
    name: "webSearch",
    keepsIndex: true,
    description: "Search the web (Exa; needs EXA_API_KEY); results as markdown with title, URL, date and text.",
    params: v.object({
      ...WebSearchParamsSchema.entries,
      numResults: v.pipe(WebSearchParamsSchema.entries.numResults, v.description(`default ${DEFAULT_RESULTS}`)),
      maxCharacters: v.pipe(WebSearchParamsSchema.entries.maxCharacters, v.description(`text per result, default ${DEFAULT_MAX_CHARACTERS}`)),
    }),
    result: v.string(),
    // Served by the agent, which holds EXA_API_KEY and the network; the executor has neither.
    run: async (params, ctx) => (await ctx.agentCall("webSearch", params)) as string,
  }),
  defineTool({
    name: "fetchMarkdown",
    keepsIndex: true,
    description: "Fetch a URL; HTML comes back as markdown, text, markdown and JSON as they are.",
    params: v.pipe(v.string(), v.minLength(1)),
    paramName: "url",
    result: v.string(),
    run: (url, ctx) => fetchMarkdown(url, { signal: ctx.signal, policy: ctx.policy }),
  }),
]
