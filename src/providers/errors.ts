/**
 * SDK failures → ModelError. Duck-typed on the SDKs' APIError shape (status, error body, name) so
 * this module does not load an SDK. The agent loop decides on retries from `retryable`.
 */
import { CancelledError } from "../errors.ts"
import { ModelError } from "./model.ts"
import { errorMessage } from "../util/error-message.ts"

export interface ErrorContext {
  /** "Anthropic API", "OpenAI API", "OpenAI-compatible API at http://…". */
  api: string
  /** What a connection failure could not reach: "the Anthropic API", "the OpenAI-compatible server". */
  service: string
  /** Where requests go; named when a connection fails and the URL tried is not known. */
  baseURL: string
  /** The variable holding the key, named when the key is refused. */
  keyVariable: string
  signal?: AbortSignal
  /** The type of the event being mapped (set by sdkEvents), named when it turns out malformed. */
  event?: string
}

/** Error types some providers send in a 200 stream or an error body, which are worth a retry. */
const retryableTypes = new Set([
  "overloaded_error",
  "rate_limit_error",
  "api_error",
  "server_error",
  "rate_limit_exceeded",
  "internal_error",
  "timeout_error",
  "service_unavailable",
  "vector_store_timeout",
])

function providerMessage(error: unknown): { message: string; type?: string } {
  const e = error as { error?: unknown; message?: unknown }
  const body = e.error as Record<string, unknown> | undefined
  // Anthropic: {type: "error", error: {type, message}}; OpenAI: {message, type, code}.
  const inner = (body && typeof body.error === "object" ? body.error : body) as Record<string, unknown> | undefined
  const message = typeof inner?.message === "string" ? inner.message : typeof e.message === "string" ? e.message : String(error)
  // OpenAI's `code` (rate_limit_exceeded, insufficient_quota) is more precise than its `type`.
  const type = typeof inner?.code === "string" ? inner.code : typeof inner?.type === "string" ? inner.type : undefined
  return type === undefined ? { message } : { message, type }
}

/**
 * The wait a response's `retry-after-ms` or `retry-after` (seconds, or an HTTP date) asks for;
 * undefined when absent, negative or not a number or date. The loop bounds it (retry.ts).
 */
export function retryAfterMs(headers: unknown): number | undefined {
  if (!(headers instanceof Headers)) return undefined
  const ms = Number(headers.get("retry-after-ms") ?? Number.NaN)
  if (Number.isFinite(ms) && ms >= 0) return ms
  const value = headers.get("retry-after")?.trim()
  if (!value) return undefined
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

export function toModelError(error: unknown, context: ErrorContext): Error {
  if (error instanceof ModelError || error instanceof CancelledError) return error
  if (context.signal?.aborted) return new CancelledError()
  // guardedFetch's refusals, which the SDKs wrap as connection errors.
  const cause = (error as { cause?: unknown } | null)?.cause
  if (cause instanceof ModelError) return cause
  const name = (error as { name?: unknown })?.name
  if (name === "AbortError" || name === "APIUserAbortError") return new CancelledError()
  const status = (error as { status?: unknown })?.status
  if (typeof status === "number") {
    const { message, type } = providerMessage(error)
    const detail = `${context.api} error ${status}${type ? ` (${type})` : ""}: ${message}`
    if (status === 401 || status === 403)
      return new ModelError(`${detail} — check ${context.keyVariable}`, false, status)
    // The status decides: a 4xx other than 408/409/429 ends the run whatever type its body names
    // (a 404 "api_error" is a wrong model or URL, not a passing fault).
    const retryable = type !== "insufficient_quota" && (status === 408 || status === 409 || status === 429 || status >= 500)
    return new ModelError(detail, retryable, status, retryable ? retryAfterMs((error as { headers?: unknown }).headers) : undefined)
  }
  if (name === "APIError" || (error as { error?: unknown })?.error !== undefined) {
    // An error event inside a 200 stream (e.g. overloaded_error): no HTTP status.
    const { message, type } = providerMessage(error)
    const retryable = type === undefined || retryableTypes.has(type)
    return new ModelError(`${context.api} error${type ? ` (${type})` : ""}: ${message}`, retryable)
  }
  if (isConnectionError(error)) return connectionError(error, context)
  // Anything else while reading the stream: the connection broke mid-response.
  const message = errorMessage(error)
  return new ModelError(`${context.api} stream interrupted: ${message}`, true)
}

/**
 * The SDKs' APIConnectionError and APIConnectionTimeoutError. The OpenAI SDK's errors are all named
 * "Error": its connection errors are the APIError shape without a status, with the SDK's message.
 */
function isConnectionError(error: unknown): boolean {
  const e = error as { name?: unknown; status?: unknown; message?: unknown } | null
  if (e?.name === "APIConnectionError" || e?.name === "APIConnectionTimeoutError") return true
  return (
    typeof e === "object" &&
    e !== null &&
    "status" in e &&
    e.status === undefined &&
    (e.message === "Connection error." || e.message === "Request timed out.")
  )
}

/**
 * A request that never got an answer, named by the URL it tried (Bun's fetch error carries it as
 * `path`): `cannot reach the Anthropic API at http://127.0.0.1:9/v1/messages: connection refused`.
 */
function connectionError(error: unknown, context: ErrorContext): ModelError {
  const cause = (error as { cause?: { code?: unknown; path?: unknown; hostname?: unknown; message?: unknown } }).cause
  const url = typeof cause?.path === "string" && /^https?:/.test(cause.path) ? cause.path : context.baseURL
  let reason = typeof cause?.message === "string" ? cause.message : (error as Error).message
  if (cause?.code === "ECONNREFUSED") reason = "connection refused"
  else if (cause?.code === "ECONNRESET") reason = "connection reset"
  else if (cause?.code === "ENOTFOUND") reason = `host ${typeof cause.hostname === "string" ? cause.hostname : "name"} not found`
  else if ((error as Error).message === "Request timed out.") reason = "timed out"
  return new ModelError(`cannot reach ${context.service} at ${url}: ${reason}`, true)
}

/** The stream ended without its final event. */
export function incompleteStream(context: ErrorContext): Error {
  if (context.signal?.aborted) return new CancelledError()
  return new ModelError(`${context.api} stream ended before the response was complete`, true)
}

/** Starts the SDK's stream; a request that fails before streaming becomes a ModelError. */
export async function openStream<T>(open: () => Promise<AsyncIterable<T>>, context: ErrorContext): Promise<AsyncIterator<T>> {
  try {
    return (await open())[Symbol.asyncIterator]()
  } catch (error) {
    throw toModelError(error, context)
  }
}

/**
 * The SDK stream's events with its errors turned into ModelErrors; ends when the stream ends.
 * `onActivity` is called for each event, before it is mapped (StreamRequest.onActivity).
 */
export async function* sdkEvents<T>(
  events: AsyncIterator<T>,
  context: ErrorContext,
  onActivity?: () => void,
): AsyncGenerator<T> {
  while (true) {
    let next: IteratorResult<T>
    try {
      next = await events.next()
    } catch (error) {
      throw toModelError(error, context)
    }
    if (next.done) return
    onActivity?.()
    const value = next.value as { type?: unknown; object?: unknown } | null
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new ModelError(`${context.api} sent an event that is not a JSON object`, true)
    const type = value.type ?? value.object
    context.event = typeof type === "string" ? type : undefined
    yield next.value
  }
}

/**
 * An event the provider's mapping could not read (a field missing or of the wrong type): a broken
 * response, retried like a cut-off one, named by its event type rather than a TypeError's text.
 */
export function malformedEvent(error: unknown, context: ErrorContext): Error {
  if (error instanceof ModelError || error instanceof CancelledError) return error
  if (context.signal?.aborted) return new CancelledError()
  return new ModelError(`${context.api} sent a malformed ${context.event ? `"${context.event}" event` : "event"}`, true)
}
