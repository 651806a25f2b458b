/**
 * Chat Completions (streaming) at OPENAI_BASE_URL → clanka Parts: Ollama, vLLM, llama.cpp server,
 * OpenRouter and the like. Reasoning that such servers stream as `delta.reasoning_content` or
 * `delta.reasoning` becomes reasoning parts; it is not sent back. Tool call deltas are
 * accumulated by index; each call's tool-input-end and tool-call come when the choice finishes.
 */
import type { OpenAI as OpenAIClient } from "openai"
import type {
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions"
import { UsageError } from "../errors.ts"
import { baseUrlFrom } from "./base-url.ts"
import { sdkClientOptions } from "./guarded-fetch.ts"
import { type ErrorContext, incompleteStream, malformedEvent, openStream, sdkEvents } from "./errors.ts"
import type { ImagePart, Message, Model, Part, StreamRequest, TokenUsage } from "./model.ts"
import { dataUrl, OPENAI_IMAGES } from "./openai.ts"
import type { Env, ModelSpec } from "./resolve.ts"
import { echoedInput, parseToolInput } from "./tool-input.ts"

export function createOpenAICompatibleModel(spec: ModelSpec, env: Env): Model {
  const baseURL = baseUrlFrom(env, "OPENAI_BASE_URL", "http://localhost:11434/v1")
  if (!baseURL)
    throw new UsageError(
      "OPENAI_BASE_URL is not set: export the server's URL to use openai-compatible models (e.g. http://localhost:11434/v1)",
    )
  // Local servers need no key, but the SDK insists on one; a placeholder is sent instead.
  const apiKey = env.OPENAI_API_KEY || "none"
  const context: Omit<ErrorContext, "signal"> = {
    api: `OpenAI-compatible API at ${baseURL}`,
    service: "the OpenAI-compatible server",
    baseURL,
    keyVariable: "OPENAI_API_KEY",
  }
  let client: OpenAIClient | undefined

  return {
    provider: "openai-compatible",
    id: spec.model,
    ...(spec.effort === undefined ? {} : { effort: spec.effort }),
    contextWindow: null,
    // Whether the served model sees images is unknown here: assumed, as OpenAI's limits; a server
    // without vision answers the request with its own error.
    imageInput: OPENAI_IMAGES,
    async *stream(request) {
      const ctx = { ...context, signal: request.signal }
      if (!client) {
        const { OpenAI } = await import("openai")
        client = new OpenAI({ apiKey, baseURL, ...sdkClientOptions(context) })
      }
      const sdk = client
      const events = await openStream(() => sdk.chat.completions.create(chatRequest(spec, request), { signal: request.signal }), ctx)
      try {
        yield* mapChunks(events, ctx, request)
      } catch (error) {
        throw malformedEvent(error, ctx)
      }
    },
  }
}

function chatRequest(spec: ModelSpec, request: StreamRequest): ChatCompletionCreateParamsStreaming {
  return {
    model: spec.model,
    stream: true,
    stream_options: { include_usage: true },
    messages: toChatMessages(request.system, request.messages),
    ...(request.tools.length
      ? {
          tools: request.tools.map((tool) => ({
            type: "function" as const,
            function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
          })),
        }
      : {}),
    ...(spec.effort ? { reasoning_effort: spec.effort as "low" } : {}),
  }
}

/**
 * Chat Completions takes images only in user messages: a tool result's images follow the run of
 * tool messages they belong to, in one user message.
 */
const TOOL_IMAGES_NOTE = "Images from the script output above:"

function toChatMessages(system: string, messages: Message[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [{ role: "system", content: system }]
  let toolImages: ImagePart[] = []
  const flushToolImages = () => {
    if (toolImages.length === 0) return
    out.push({ role: "user", content: [{ type: "text", text: TOOL_IMAGES_NOTE }, ...imageParts(toolImages)] })
    toolImages = []
  }
  for (const message of messages) {
    if (message.role !== "tool") flushToolImages()
    if (message.role === "user") {
      if (!message.images?.length) out.push({ role: "user", content: message.content })
      else out.push({ role: "user", content: [{ type: "text", text: message.content }, ...imageParts(message.images)] })
    } else if (message.role === "tool") {
      out.push({ role: "tool", tool_call_id: message.toolCallId, content: message.content })
      toolImages.push(...(message.images ?? []))
    } else {
      const text = message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("")
      const calls = message.content.flatMap((p) =>
        p.type === "tool-call"
          ? [{ id: p.id, type: "function" as const, function: { name: p.name, arguments: JSON.stringify(echoedInput(p.input)) } }]
          : [],
      )
      if (text === "" && calls.length === 0) continue
      out.push({ role: "assistant", content: text === "" ? null : text, ...(calls.length ? { tool_calls: calls } : {}) })
    }
  }
  flushToolImages()
  return out
}

function imageParts(images: readonly ImagePart[]): ChatCompletionContentPart[] {
  return images.map((image) => ({ type: "image_url", image_url: { url: dataUrl(image) } }))
}

interface Call {
  id: string
  name: string
  json: string
}

async function* mapChunks(
  chunks: AsyncIterator<ChatCompletionChunk>,
  ctx: ErrorContext,
  { onActivity, onUsage }: Pick<StreamRequest, "onActivity" | "onUsage">,
): AsyncIterable<Part> {
  let open: "text" | "reasoning" | null = null
  const calls = new Map<number, Call>()
  let finish: string | null = null
  // Until a usage chunk comes (a server may send none, or ignore stream_options.include_usage).
  let usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, unreported: true }
  const close = function* (): Iterable<Part> {
    if (open === "text") yield { type: "text-end" }
    if (open === "reasoning") yield { type: "reasoning-end" }
    open = null
  }
  for await (const chunk of sdkEvents(chunks, ctx, onActivity)) {
    if (chunk.usage) {
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0
      usage = {
        inputTokens: Math.max(0, chunk.usage.prompt_tokens - cached),
        outputTokens: chunk.usage.completion_tokens,
        cacheReadTokens: cached,
        cacheWriteTokens: 0,
      }
      onUsage?.({ ...usage })
    }
    const choice = chunk.choices?.[0]
    if (!choice) continue
    const delta = choice.delta as ChatCompletionChunk.Choice.Delta & { reasoning_content?: string; reasoning?: string }
    const reasoning = delta.reasoning_content ?? delta.reasoning
    if (reasoning) {
      if (open !== "reasoning") {
        yield* close()
        open = "reasoning"
        yield { type: "reasoning-start" }
      }
      yield { type: "reasoning-delta", delta: reasoning }
    }
    if (delta.content) {
      if (open !== "text") {
        yield* close()
        open = "text"
        yield { type: "text-start" }
      }
      yield { type: "text-delta", delta: delta.content }
    }
    for (const tc of delta.tool_calls ?? []) {
      // Some servers send no index: a delta with a new id starts the next call, one without
      // continues the latest.
      let index: number = tc.index
      if (typeof index !== "number") {
        const latest = [...calls.keys()].at(-1)
        index = latest === undefined || (tc.id && tc.id !== calls.get(latest)!.id) ? calls.size : latest
      }
      let call = calls.get(index)
      if (!call) {
        yield* close()
        call = { id: tc.id || `call_${index}`, name: tc.function?.name ?? "", json: "" }
        calls.set(index, call)
        yield { type: "tool-input-start", id: call.id, name: call.name }
      }
      const args = tc.function?.arguments
      if (args) {
        call.json += args
        yield { type: "tool-input-delta", id: call.id, delta: args }
      }
    }
    if (choice.finish_reason) finish = choice.finish_reason
  }
  if (finish === null) throw incompleteStream(ctx)
  yield* close()
  for (const call of calls.values()) {
    yield { type: "tool-input-end", id: call.id }
    yield { type: "tool-call", id: call.id, name: call.name, input: parseToolInput(call.json) }
  }
  const stop = finish === "length" ? "length" : finish === "content_filter" ? "refusal" : calls.size > 0 ? "tool" : "end"
  yield { type: "finish", stop, usage }
}
