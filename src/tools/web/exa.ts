// webSearch: Exa's search API, results rendered as markdown a model can read.
import * as v from "valibot"
import { ToolError } from "../../errors.ts"
import { seconds } from "../../util/duration.ts"
import { errorMessage } from "../../util/error-message.ts"

const ExaResponse = v.object({
  results: v.array(
    v.looseObject({
      title: v.nullish(v.string()),
      url: v.string(),
      publishedDate: v.nullish(v.string()),
      author: v.nullish(v.string()),
      text: v.nullish(v.string()),
    }),
  ),
})

export interface WebSearchOptions {
  query: string
  numResults?: number
  maxCharacters?: number
}

export const DEFAULT_RESULTS = 5
export const DEFAULT_MAX_CHARACTERS = 3000
const TIMEOUT_MS = 30_000

export async function exaSearch(
  options: WebSearchOptions,
  env: Record<string, string | undefined> = process.env,
  signal?: AbortSignal,
): Promise<string> {
  const key = env.EXA_API_KEY
  if (!key) throw new ToolError("set EXA_API_KEY to an Exa API key (https://exa.ai) to use webSearch")
  const base = (env.EXA_BASE_URL || "https://api.exa.ai").replace(/\/+$/, "")
  const body = {
    query: options.query,
    numResults: options.numResults ?? DEFAULT_RESULTS,
    contents: { text: { maxCharacters: options.maxCharacters ?? DEFAULT_MAX_CHARACTERS } },
  }
  const timeout = AbortSignal.timeout(TIMEOUT_MS)
  let response: Response
  try {
    response = await fetch(`${base}/search`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    })
  } catch (error) {
    if (timeout.aborted) throw new ToolError(`Exa search timed out after ${seconds(TIMEOUT_MS)}`)
    if (signal?.aborted) throw new ToolError("cancelled")
    throw new ToolError(`Exa search failed: ${errorMessage(error)}`)
  }
  const text = await response.text()
  if (!response.ok) {
    throw new ToolError(`Exa search failed: HTTP ${response.status}${bodyError(text, response.statusText)}`)
  }
  let parsed: v.InferOutput<typeof ExaResponse>
  try {
    parsed = v.parse(ExaResponse, JSON.parse(text))
  } catch {
    throw new ToolError(`Exa search failed: unexpected response: ${text.slice(0, 200)}`)
  }
  return renderResults(options.query, parsed.results)
}

/** `: message` from an error body ({"error": …} or {"message": …}), else the status text. */
function bodyError(body: string, statusText: string): string {
  let message: unknown
  try {
    const json = JSON.parse(body)
    message = json?.error?.message ?? json?.error ?? json?.message
  } catch {
    message = body.trim().slice(0, 300)
  }
  const text = typeof message === "string" && message ? message : statusText
  return text ? `: ${text.replace(/\s+/g, " ")}` : ""
}

type Result = v.InferOutput<typeof ExaResponse>["results"][number]

export function renderResults(query: string, results: readonly Result[]): string {
  if (results.length === 0) return `No results for ${JSON.stringify(query)}.`
  return results
    .map((result, index) => {
      const lines = [`## ${index + 1}. ${result.title?.trim() || result.url}`, result.url]
      const meta = [result.publishedDate?.slice(0, 10), result.author?.trim()].filter(Boolean)
      if (meta.length) lines.push(meta.join(" · "))
      const body = result.text?.trim()
      if (body) lines.push("", body)
      return lines.join("\n")
    })
    .join("\n\n")
}
