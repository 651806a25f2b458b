/**
 * The fetch the SDKs are given: it bounds what an endpoint can make clanka read, and refuses an
 * answer that is plainly not the API's, with one line rather than a retried "stream ended".
 *
 * - A body (stream or error) is counted as it is read, after decompression, so neither a response
 *   without end nor a gzip bomb can fill memory: past MAX_RESPONSE_BYTES reading stops.
 * - A 200 with an HTML page (a proxy's sign-in page, a web UI at the base URL) is no stream; nor
 *   is a 200 with JSON (a server that ignores `stream: true`), unless the JSON is an error, which
 *   is treated as an error event in a stream (retried by its type).
 *
 * These end the run: none is a passing fault a retry would mend. The SDKs wrap what fetch throws
 * as a connection error with the thrown error as its cause; toModelError unwraps it.
 */
import { type ErrorContext, toModelError } from "./errors.ts"
import { ModelError } from "./model.ts"

/**
 * The most one response may send. The longest real responses (128k output tokens streamed one
 * delta event each, with the Responses API's repeats of the whole text) stay well under it.
 */
export const MAX_RESPONSE_BYTES = 128 * 1024 * 1024

/**
 * What every SDK client is made with: no retries of its own (the loop retries, retry.ts), this
 * fetch, and its logger off (it would print a broken event and its raw chunk on stderr, amid
 * clanka's output).
 */
export function sdkClientOptions(context: Omit<ErrorContext, "signal">): { maxRetries: 0; fetch: typeof fetch; logLevel: "off" } {
  return { maxRetries: 0, fetch: guardedFetch(context), logLevel: "off" }
}

export function guardedFetch(context: Omit<ErrorContext, "signal">, limit = MAX_RESPONSE_BYTES): typeof fetch {
  const guarded = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const response = await fetch(input, init)
    if (response.ok && /^\s*text\/html\b/i.test(response.headers.get("content-type") ?? "")) {
      await response.body?.cancel().catch(() => {})
      throw new ModelError(`${context.api} answered with an HTML page, not an event stream: is ${context.baseURL} the API's URL?`, false)
    }
    if (response.ok && /^\s*application\/json\b/i.test(response.headers.get("content-type") ?? "")) {
      const error = (safeJson(await headOf(response, 64 * 1024)) as { error?: unknown } | undefined)?.error
      if (error !== undefined && error !== null) throw toModelError({ error: { error } }, context)
      throw new ModelError(`${context.api} answered with JSON, not an event stream: does the server stream responses (stream: true)?`, false)
    }
    if (!response.body) return response
    let read = 0
    const source = response.body
    const counted = source.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          read += chunk.byteLength
          if (read > limit) {
            controller.error(new ModelError(`${context.api} sent more than ${Math.round(limit / 1024 / 1024)} MiB in one response; clanka stopped reading it`, false))
            return
          }
          controller.enqueue(chunk)
        },
      }),
    )
    // The body is already decoded: the copy carries no content-encoding or length to mislead a reader.
    const headers = new Headers(response.headers)
    headers.delete("content-encoding")
    headers.delete("content-length")
    return new Response(counted, { status: response.status, statusText: response.statusText, headers })
  }
  return Object.assign(guarded, { preconnect: fetch.preconnect }) as typeof fetch
}

/** The first `bytes` of a body as text; the rest is not read. */
async function headOf(response: Response, bytes: number): Promise<string> {
  if (!response.body) return ""
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let read = 0
  try {
    while (read < bytes) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      read += value.byteLength
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, bytes))
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
