import { CancelledError, EXECUTE_TOOL_NAME, scriptOf } from "../contract.ts"
import type { AssistantContent, Message, Model, Part, TokenUsage, ToolSpec } from "../providers/model.ts"
import { ModelError } from "../providers/model.ts"
import type { ContentPart } from "./events.ts"
import { seconds } from "../util/duration.ts"
import { ScriptDecoder } from "./script-decoder.ts"

interface TurnRequest {
  model: Model
  system: string
  messages: Message[]
  tools: ToolSpec[]
  signal: AbortSignal
  /** Inactivity limit: reset by every event the provider receives (StreamRequest.onActivity). */
  timeoutMs: number
  emit(part: ContentPart): void
  /** True when a steering message waits: the stream is cut at the next text or reasoning end. */
  steeringPending(): boolean
  /** Tokens a failed response had reported before it failed: billed, so they are counted. */
  onDroppedUsage?(usage: TokenUsage): void
}

export interface ToolCall {
  id: string
  name: string
  input: unknown
}

export interface TurnResult {
  content: AssistantContent[]
  toolCalls: ToolCall[]
  usage: TokenUsage
  stop: "tool" | "end" | "length" | "refusal" | "steered"
  durationMs: number
}

/** The model went quiet for longer than the turn timeout, or sent only empty events for 3 times that. */
export class TurnTimeoutError extends ModelError {
  override name = "TurnTimeoutError"
  constructor(timeoutMs: number, emptyOnly = false) {
    super(
      emptyOnly
        ? `the model sent only keep-alive events for ${seconds(timeoutMs * EMPTY_EVENTS_FACTOR)} (${EMPTY_EVENTS_FACTOR} × the turn timeout)`
        : `the model sent nothing for ${seconds(timeoutMs)} (turn timeout)`,
      true,
    )
  }
}

/**
 * Events that map to no part (pings, usage-only chunks, unknown types) keep a slow turn alive, but
 * not for ever: a stream of nothing else for this many turn timeouts is a stall.
 */
const EMPTY_EVENTS_FACTOR = 3

const UNFINISHED_SCRIPT = "(not run: the response ended before the script was complete)"

const EMPTY_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }

/**
 * Streams one model response, turning parts into events as they arrive, and collects the
 * assistant message for the history. Empty or whitespace-only text or reasoning blocks produce no
 * events. On any failure the open block is closed (so the output lock is released) and the error
 * thrown.
 */
export async function streamTurn(request: TurnRequest): Promise<TurnResult> {
  const started = performance.now()
  const controller = new AbortController()
  // Settled by onAbort, the one listener on the run's signal, which the turn removes at its end.
  let rejectAborted!: (error: Error) => void
  const aborted = new Promise<never>((_, reject) => (rejectAborted = reject))
  aborted.catch(() => {})
  const onAbort = () => {
    controller.abort(request.signal.reason)
    rejectAborted(new CancelledError("interrupted"))
  }
  if (request.signal.aborted) onAbort()
  else request.signal.addEventListener("abort", onAbort, { once: true })

  const content: AssistantContent[] = []
  const toolCalls: ToolCall[] = []
  let usage: TokenUsage | undefined
  /** Token counts the provider reported before its final event (kept when steering cuts). */
  let usageSoFar: TokenUsage | undefined
  let stop: TurnResult["stop"] | undefined
  // The block being streamed: its kind, text so far and whether its Start event went out (held
  // back while the text is only whitespace).
  let block: { kind: "text" | "reasoning"; text: string; open: boolean; providerData?: unknown } | undefined
  let script: { id: string; decoder: ScriptDecoder; open: boolean } | undefined
  /** Ids of tool calls whose input was streamed (and shown) already. */
  const streamed = new Set<string>()

  const closeOpen = () => {
    if (block?.open) request.emit({ _tag: "ReasoningEnd" })
    if (script?.open) request.emit({ _tag: "ScriptEnd" })
    block = undefined
    script = undefined
  }

  const endScript = (input?: unknown) => {
    if (!script) return
    // Whatever the incremental decoder has not shown yet (e.g. a provider that sends the input
    // only whole) goes out as a last delta, so the deltas add up to the exact script.
    const full = scriptOf(input) ?? scriptOf(script.decoder.text)
    if (full !== undefined && full.startsWith(script.decoder.decoded) && full.length > script.decoder.decoded.length) {
      request.emit({ _tag: "ScriptDelta", delta: full.slice(script.decoder.decoded.length) })
      script.decoder.decoded = full
    }
    request.emit({ _tag: "ScriptEnd" })
    script = undefined
  }

  const handle = (part: Part): boolean => {
    switch (part.type) {
      case "text-start":
      case "reasoning-start":
        block = { kind: part.type === "text-start" ? "text" : "reasoning", text: "", open: false }
        return false
      case "text-delta":
      case "reasoning-delta": {
        if (!part.delta) return false
        block ??= { kind: part.type === "text-delta" ? "text" : "reasoning", text: "", open: false }
        block.text += part.delta
        if (block.open) request.emit({ _tag: "ReasoningDelta", delta: part.delta })
        else if (block.text.trim()) {
          // The block starts at its first visible character; the whitespace held back until then
          // goes out with it, so the deltas still add up to the exact text.
          request.emit(block.kind === "reasoning" ? { _tag: "ReasoningStart", thinking: true } : { _tag: "ReasoningStart" })
          request.emit({ _tag: "ReasoningDelta", delta: block.text })
          block.open = true
        }
        return false
      }
      case "provider-data":
        if (block) block.providerData = part.data
        return false
      case "text-end":
      case "reasoning-end": {
        if (!block) return false
        if (block.open) request.emit({ _tag: "ReasoningEnd" })
        // A blank text block is dropped (Anthropic refuses whitespace-only text in the history);
        // blank reasoning is kept when it carries provider data that must be echoed.
        if (block.kind === "text") {
          if (block.text.trim()) content.push({ type: "text", text: block.text })
        } else if (block.text.trim() || block.providerData !== undefined) {
          content.push({
            type: "reasoning",
            text: block.text,
            ...(block.providerData === undefined ? {} : { providerData: block.providerData }),
          })
        }
        block = undefined
        return request.steeringPending()
      }
      case "tool-input-start":
        if (part.name !== EXECUTE_TOOL_NAME) return false
        script = { id: part.id, decoder: new ScriptDecoder(), open: true }
        streamed.add(part.id)
        request.emit({ _tag: "ScriptStart" })
        return false
      case "tool-input-delta": {
        if (!script || script.id !== part.id) return false
        const delta = script.decoder.push(part.delta)
        if (delta) request.emit({ _tag: "ScriptDelta", delta })
        return false
      }
      case "tool-input-end":
        if (script?.id === part.id) endScript()
        return false
      case "tool-call": {
        // Each call's result is matched to it by id: two calls sharing one would get two results
        // the provider cannot tell apart (and refuses), after both scripts ran. A broken response.
        if (toolCalls.some((call) => call.id === part.id)) {
          throw new ModelError(`the response has two tool calls with the id ${JSON.stringify(part.id)}`, true)
        }
        if (part.name === EXECUTE_TOOL_NAME) {
          if (script?.id === part.id) endScript(part.input)
          else if (!streamed.has(part.id)) {
            // The provider did not stream the input: show the script whole.
            request.emit({ _tag: "ScriptStart" })
            const text = scriptOf(part.input)
            if (text) request.emit({ _tag: "ScriptDelta", delta: text })
            request.emit({ _tag: "ScriptEnd" })
          }
        }
        content.push({ type: "tool-call", id: part.id, name: part.name, input: part.input })
        toolCalls.push({ id: part.id, name: part.name, input: part.input })
        return false
      }
      case "finish":
        usage = part.usage
        stop = part.stop
        return false
    }
  }

  let timer: ReturnType<typeof setTimeout> | undefined
  let settled = false
  let rejectTimeout: (error: Error) => void = () => {}
  const timeout = new Promise<never>((_, reject) => (rejectTimeout = reject))
  timeout.catch(() => {})
  const arm = () => {
    // A provider may still report activity while it winds down; no timer may outlive the turn.
    if (settled) return
    clearTimeout(timer)
    timer = setTimeout(() => rejectTimeout(new TurnTimeoutError(request.timeoutMs)), request.timeoutMs)
  }
  let contentTimer: ReturnType<typeof setTimeout> | undefined
  /** Reset by parts only (content, boundaries, usage), not by events that map to none. */
  const armContent = () => {
    if (settled) return
    clearTimeout(contentTimer)
    const limit = request.timeoutMs * EMPTY_EVENTS_FACTOR
    contentTimer = setTimeout(() => rejectTimeout(new TurnTimeoutError(request.timeoutMs, true)), limit)
  }

  const iterator = request.model
    .stream({
      system: request.system,
      messages: request.messages,
      tools: request.tools,
      signal: controller.signal,
      // Every SDK event counts, also those that map to no part (pings, usage-only chunks).
      onActivity: arm,
      onUsage: (counts) => (usageSoFar = counts),
    })
    [Symbol.asyncIterator]()
  try {
    arm()
    armContent()
    while (true) {
      // Racing each read against the timer and the caller's signal: a provider stuck in a read
      // cannot hold the turn.
      const next = await Promise.race([iterator.next(), timeout, aborted])
      if (next.done) break
      arm()
      armContent()
      if (handle(next.value)) {
        stop = "steered"
        break
      }
    }
  } catch (error) {
    closeOpen()
    if (usageSoFar) request.onDroppedUsage?.(usageSoFar)
    if (request.signal.aborted) throw new CancelledError("interrupted")
    throw error
  } finally {
    settled = true
    clearTimeout(timer)
    clearTimeout(contentTimer)
    request.signal.removeEventListener("abort", onAbort)
    controller.abort()
    iterator.return?.().catch(() => {})
  }
  closeOpen()
  if (stop === "steered") {
    // Only text survives a cut: half a tool call or unsigned reasoning cannot be sent back.
    return {
      content: content.filter((item) => item.type === "text"),
      toolCalls: [],
      usage: usage ?? usageSoFar ?? EMPTY_USAGE,
      stop,
      durationMs: performance.now() - started,
    }
  }
  if (!usage || !stop) throw new ModelError("the model's response ended before it was complete", true)
  // A script whose call never completed (the response stopped mid-call: a refusal, the output
  // limit) does not run; its ScriptEnd still gets its ScriptOutput.
  for (const id of streamed) {
    if (!toolCalls.some((call) => call.id === id)) request.emit({ _tag: "ScriptOutput", output: UNFINISHED_SCRIPT, failed: true })
  }
  return { content, toolCalls, usage, stop, durationMs: performance.now() - started }
}
