// fetchMarkdown(url): a page as markdown. Redirects are followed, the whole fetch has a time
// limit, bodies are read as a stream and refused past a size cap, and only text-like content
// types are accepted.
import type { SandboxPolicy } from "../../contract.ts"
import { ToolError } from "../../errors.ts"
import { sandboxHint } from "../sandbox-hint.ts"
import { VERSION } from "../../version.ts"
import { htmlToMarkdown } from "./html.ts"
import { seconds } from "../../util/duration.ts"
import { errorMessage } from "../../util/error-message.ts"

export const FETCH_TIMEOUT_MS = 30_000
export const MAX_BODY_BYTES = 5 * 1024 * 1024

export interface FetchOptions {
  signal?: AbortSignal
  /** The sandbox's rule: a request it blocked says which flag allows it. */
  policy?: SandboxPolicy
  timeoutMs?: number
  maxBytes?: number
}

type Kind = "html" | "text"

/** What to do with a content type, or undefined when it is not text a model can read. */
function kindOf(contentType: string): Kind | undefined {
  const type = contentType.split(";")[0]!.trim().toLowerCase()
  if (type === "") return "text"
  if (type === "text/html" || type === "application/xhtml+xml") return "html"
  if (type.startsWith("text/")) return "text"
  if (type === "application/json" || type.endsWith("+json") || type === "application/x-ndjson") return "text"
  if (type === "application/xml" || type.endsWith("+xml") || type === "application/javascript") return "text"
  return undefined
}

function charsetOf(contentType: string): string {
  return /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1] ?? "utf-8"
}

function sizeLabel(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MB` : `${bytes} bytes`
}

export async function fetchMarkdown(url: string, options: FetchOptions = {}): Promise<string> {
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new ToolError(`not a valid URL: ${JSON.stringify(url)}`)
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ToolError(`only http and https URLs can be fetched, not ${parsed.protocol}`)
  }
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), timeoutMs)
  const onAbort = () => controller.abort()
  options.signal?.addEventListener("abort", onAbort, { once: true })
  const failure = (error: unknown): ToolError => {
    if (options.signal?.aborted) return new ToolError("cancelled")
    if (controller.signal.aborted) return new ToolError(`timed out after ${seconds(timeoutMs)} fetching ${url}`)
    if (error instanceof ToolError) return error
    const message = `could not fetch ${url}: ${errorMessage(error)}`
    const hint = options.policy ? sandboxHint(message, options.policy) : ""
    return new ToolError(hint ? `${message} ${hint}` : message)
  }
  try {
    let response: Response
    try {
      response = await fetch(parsed, {
        redirect: "follow",
        signal: controller.signal,
        headers: {
          "user-agent": `clanka/${VERSION}`,
          accept: "text/html,application/xhtml+xml,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5",
        },
      })
    } catch (error) {
      throw failure(error)
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {})
      throw new ToolError(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""} fetching ${url}`)
    }
    const contentType = response.headers.get("content-type") ?? ""
    const kind = kindOf(contentType)
    if (!kind) {
      await response.body?.cancel().catch(() => {})
      throw new ToolError(
        `cannot convert ${contentType.split(";")[0]} from ${url}: fetchMarkdown reads HTML, text, markdown and JSON`,
      )
    }
    const declared = Number(response.headers.get("content-length") ?? "NaN")
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => {})
      throw new ToolError(`response from ${url} is larger than ${sizeLabel(maxBytes)} (${declared} bytes); refused`)
    }
    let bytes: Uint8Array
    try {
      bytes = await readCapped(response, maxBytes, url)
    } catch (error) {
      throw failure(error)
    }
    let decoder: TextDecoder
    try {
      decoder = new TextDecoder(charsetOf(contentType) as ConstructorParameters<typeof TextDecoder>[0])
    } catch {
      decoder = new TextDecoder("utf-8")
    }
    const text = decoder.decode(bytes)
    return kind === "html" ? await htmlToMarkdown(text, response.url || url) : text
  } finally {
    clearTimeout(timer)
    options.signal?.removeEventListener("abort", onAbort)
  }
}

/** Reads the body, aborting as soon as it grows past `maxBytes`. */
async function readCapped(response: Response, maxBytes: number, url: string): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array()
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      throw new ToolError(`response from ${url} is larger than ${sizeLabel(maxBytes)}; refused`)
    }
    chunks.push(value)
  }
  const out = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.byteLength
  }
  return out
}
