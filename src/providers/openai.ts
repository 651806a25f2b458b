/**
 * OpenAI Responses API (streaming) → clanka Parts.
 *
 * Requests are sent with `store: false`, so nothing lives on OpenAI's side between turns: each
 * reasoning item comes back encrypted (`include: ["reasoning.encrypted_content"]`) and is echoed
 * on later requests. Each reasoning item becomes reasoning-start, reasoning-delta… (the summary;
 * a blank line between summary parts), one `provider-data` part `{provider: "openai", id,
 * encryptedContent, summary}`, reasoning-end. An item with no summary still produces start,
 * provider-data and end so that it is echoed.
 *
 * Usage: `inputTokens` is the uncached input (input minus cache reads and cache writes).
 */
import type { OpenAI as OpenAIClient } from "openai"
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseInputItem,
  ResponseStreamEvent,
  ResponseUsage,
} from "openai/resources/responses/responses"
import { UsageError } from "../errors.ts"
import { baseUrlFrom } from "./base-url.ts"
import { sdkClientOptions } from "./guarded-fetch.ts"
import { type ErrorContext, incompleteStream, malformedEvent, openStream, sdkEvents, toModelError } from "./errors.ts"
import type { ImageInput, ImagePart, Message, Model, Part, StreamRequest, TokenUsage } from "./model.ts"
import { contextWindow, takesImages } from "./prices.ts"
import { echoedInput, parseToolInput } from "./tool-input.ts"
import type { Env, ModelSpec } from "./resolve.ts"

interface OpenAIReasoningData {
  provider: "openai"
  id: string
  encryptedContent: string | null
  summary: string[]
}

/** Models that reason (and so accept reasoning settings and return encrypted reasoning). */
function isReasoningModel(spec: ModelSpec): boolean {
  return spec.effort !== undefined || /^(o\d|gpt-5(?!.*-chat)|gpt-oss|codex)/.test(spec.model)
}

const OPENAI_URL = "https://api.openai.com/v1"

/** OpenAI takes images up to 20 MB each (larger sides are scaled down, not refused). */
export const OPENAI_IMAGES: ImageInput = { maxBytes: 20 * 1024 * 1024 }

/** An image as a data URL, the form the OpenAI APIs take inline. */
export function dataUrl(image: ImagePart): string {
  return `data:${image.mediaType};base64,${image.data}`
}

export function createOpenAIModel(spec: ModelSpec, env: Env): Model {
  const apiKey = env.OPENAI_API_KEY
  if (!apiKey) throw new UsageError("OPENAI_API_KEY is not set: export it to use openai models")
  const baseURL = baseUrlFrom(env, "OPENAI_BASE_URL", OPENAI_URL) ?? OPENAI_URL
  const context: Omit<ErrorContext, "signal"> = {
    api: "OpenAI API",
    service: "the OpenAI API",
    baseURL,
    keyVariable: "OPENAI_API_KEY",
  }
  let client: OpenAIClient | undefined

  return {
    provider: "openai",
    id: spec.model,
    ...(spec.effort === undefined ? {} : { effort: spec.effort }),
    contextWindow: contextWindow("openai", spec.model),
    ...(takesImages("openai", spec.model) ? { imageInput: OPENAI_IMAGES } : {}),
    async *stream(request) {
      const ctx = { ...context, signal: request.signal }
      if (!client) {
        const { OpenAI } = await import("openai")
        client = new OpenAI({ apiKey, baseURL, ...sdkClientOptions(context) })
      }
      const sdk = client
      const events = await openStream(() => sdk.responses.create(responsesRequest(spec, request), { signal: request.signal }), ctx)
      try {
        yield* mapEvents(events, ctx, request.onActivity)
      } catch (error) {
        throw malformedEvent(error, ctx)
      }
    },
  }
}

function responsesRequest(spec: ModelSpec, request: StreamRequest): ResponseCreateParamsStreaming {
  const tools: FunctionTool[] = request.tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
    strict: false,
  }))
  const body: ResponseCreateParamsStreaming = {
    model: spec.model,
    stream: true,
    store: false,
    instructions: request.system,
    input: toResponsesInput(request.messages),
    ...(tools.length ? { tools } : {}),
  }
  if (isReasoningModel(spec)) {
    body.include = ["reasoning.encrypted_content"]
    body.reasoning = { summary: "auto", ...(spec.effort ? { effort: spec.effort as "low" } : {}) }
  }
  return body
}

function toResponsesInput(messages: Message[]): ResponseInputItem[] {
  const input: ResponseInputItem[] = []
  for (const message of messages) {
    if (message.role === "user") {
      if (!message.images?.length) input.push({ role: "user", content: message.content })
      else input.push({ role: "user", content: [{ type: "input_text", text: message.content }, ...inputImages(message.images)] })
    } else if (message.role === "tool") {
      // A function call's output may be a list of text and images: the images follow the text.
      const output = message.images?.length ? [{ type: "input_text" as const, text: message.content }, ...inputImages(message.images)] : message.content
      input.push({ type: "function_call_output", call_id: message.toolCallId, output })
    } else
      for (const part of message.content) {
        if (part.type === "text") {
          if (part.text !== "") input.push({ role: "assistant", content: part.text })
        } else if (part.type === "tool-call") {
          input.push({ type: "function_call", call_id: part.id, name: part.name, arguments: JSON.stringify(echoedInput(part.input)) })
        } else {
          const data = part.providerData as OpenAIReasoningData | undefined
          if (data?.provider !== "openai") continue
          input.push({
            type: "reasoning",
            id: data.id,
            encrypted_content: data.encryptedContent,
            summary: data.summary.map((text) => ({ type: "summary_text", text })),
          })
        }
      }
  }
  return input
}

function inputImages(images: readonly ImagePart[]): { type: "input_image"; image_url: string; detail: "auto" }[] {
  return images.map((image) => ({ type: "input_image", image_url: dataUrl(image), detail: "auto" }))
}

function responsesUsage(u: ResponseUsage | null | undefined): TokenUsage {
  if (!u) return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, unreported: true }
  const cacheRead = u?.input_tokens_details?.cached_tokens ?? 0
  const cacheWrite = u?.input_tokens_details?.cache_write_tokens ?? 0
  return {
    inputTokens: Math.max(0, (u?.input_tokens ?? 0) - cacheRead - cacheWrite),
    outputTokens: u?.output_tokens ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  }
}

async function* mapEvents(
  events: AsyncIterator<ResponseStreamEvent>,
  ctx: ErrorContext,
  onActivity?: () => void,
): AsyncIterable<Part> {
  /** item id → call id of function calls, whose argument deltas name only the item. */
  const calls = new Map<string, string>()
  let sawCall = false
  /** The model refused (a refusal content part): the response stops as a refusal. */
  let refused = false
  for await (const event of sdkEvents(events, ctx, onActivity)) {
    switch (event.type) {
      case "response.output_item.added": {
        const item = event.item
        if (item.type === "reasoning") yield { type: "reasoning-start" }
        else if (item.type === "message") yield { type: "text-start" }
        else if (item.type === "function_call") {
          calls.set(item.id ?? item.call_id, item.call_id)
          yield { type: "tool-input-start", id: item.call_id, name: item.name }
        }
        break
      }
      case "response.reasoning_summary_part.added":
        if (event.summary_index > 0) yield { type: "reasoning-delta", delta: "\n\n" }
        break
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        if (event.delta) yield { type: "reasoning-delta", delta: event.delta }
        break
      case "response.output_text.delta":
        if (event.delta) yield { type: "text-delta", delta: event.delta }
        break
      case "response.refusal.delta":
        refused = true
        if (event.delta) yield { type: "text-delta", delta: event.delta }
        break
      case "response.function_call_arguments.delta": {
        const id = calls.get(event.item_id)
        if (id !== undefined && event.delta) yield { type: "tool-input-delta", id, delta: event.delta }
        break
      }
      case "response.output_item.done": {
        const item = event.item
        if (item.type === "reasoning") {
          const data: OpenAIReasoningData = {
            provider: "openai",
            id: item.id,
            encryptedContent: item.encrypted_content ?? null,
            summary: item.summary.map((s) => s.text),
          }
          yield { type: "provider-data", data }
          yield { type: "reasoning-end" }
        } else if (item.type === "message") yield { type: "text-end" }
        else if (item.type === "function_call") {
          sawCall = true
          yield { type: "tool-input-end", id: item.call_id }
          yield { type: "tool-call", id: item.call_id, name: item.name, input: parseToolInput(item.arguments) }
        }
        break
      }
      case "response.completed":
        yield { type: "finish", stop: sawCall ? "tool" : refused ? "refusal" : "end", usage: responsesUsage(event.response.usage) }
        return
      case "response.incomplete": {
        const reason = event.response.incomplete_details?.reason
        const stop = reason === "max_output_tokens" ? "length" : reason === "content_filter" ? "refusal" : sawCall ? "tool" : "end"
        yield { type: "finish", stop, usage: responsesUsage(event.response.usage) }
        return
      }
      case "response.failed": {
        const error = event.response.error
        throw toModelError({ error: { message: error?.message ?? "the response failed", code: error?.code ?? "unknown" } }, ctx)
      }
      case "error":
        throw toModelError({ error: { message: event.message, code: event.code } }, ctx)
    }
  }
  // The stream ended before its final event.
  throw incompleteStream(ctx)
}
