/**
 * Anthropic Messages API (streaming) → clanka Parts.
 *
 * Reasoning: each thinking block becomes reasoning-start/delta…/end with one `provider-data` part
 * just before its reasoning-end: `{provider: "anthropic", signature}` (or `{provider: "anthropic",
 * redacted: data}` for a redacted block, which has no deltas). Store it as the `providerData` of
 * the assistant message's reasoning content; it is echoed back as the signed thinking block, which
 * the API requires while a tool-use turn continues. Reasoning without Anthropic provider data is
 * not sent back (the API rejects unsigned thinking).
 *
 * Prompt cache: breakpoints on the last tool, on the system prompt, and on the last two user-role
 * messages (tool results included), so each request reads the previous one's prefix from cache.
 */
import type { BaseAnthropic } from "@anthropic-ai/sdk/client"
import type { Stream } from "@anthropic-ai/sdk/core/streaming"
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  StopReason,
  ToolUnion,
} from "@anthropic-ai/sdk/resources/messages"
import { UsageError } from "../errors.ts"
import { baseUrlFrom } from "./base-url.ts"
import { sdkClientOptions } from "./guarded-fetch.ts"
import { type ErrorContext, incompleteStream, malformedEvent, openStream, sdkEvents } from "./errors.ts"
import type { ImageInput, ImagePart, Message, Model, Part, StreamRequest, TokenUsage } from "./model.ts"
import { canonicalModelId, modelInfo, takesImages } from "./prices.ts"
import { echoedInput, parseToolInput } from "./tool-input.ts"
import type { Env, ModelSpec } from "./resolve.ts"

const ephemeral = { type: "ephemeral" } as const

/** Models that take a thinking budget; newer ones think adaptively and take `output_config.effort`. */
const budgetThinking = new Set([
  "claude-3-7-sonnet",
  "claude-sonnet-4",
  "claude-opus-4",
  "claude-opus-4-1",
  "claude-sonnet-4-5",
  "claude-haiku-4-5",
  "claude-opus-4-5",
])
const budgets: Record<string, number> = { low: 4_096, medium: 10_000, high: 24_000, xhigh: 31_999, max: 48_000 }

interface AnthropicReasoningData {
  provider: "anthropic"
  signature?: string
  redacted?: string
}

const ANTHROPIC_URL = "https://api.anthropic.com"

/**
 * The Messages API refuses an image whose base64 text passes 5 MiB (so 3.75 MiB of bytes), or
 * with a side over 8000 px.
 */
export const ANTHROPIC_IMAGES: ImageInput = { maxBytes: (5 * 1024 * 1024 * 3) / 4, maxSide: 8000 }

export function createAnthropicModel(spec: ModelSpec, env: Env): Model {
  const apiKey = env.ANTHROPIC_API_KEY
  if (!apiKey) throw new UsageError("ANTHROPIC_API_KEY is not set: export it to use anthropic models")
  const baseURL = baseUrlFrom(env, "ANTHROPIC_BASE_URL", ANTHROPIC_URL) ?? ANTHROPIC_URL
  const info = modelInfo("anthropic", spec.model)
  const context: Omit<ErrorContext, "signal"> = {
    api: "Anthropic API",
    service: "the Anthropic API",
    baseURL,
    keyVariable: "ANTHROPIC_API_KEY",
  }
  let client: BaseAnthropic | undefined

  return {
    provider: "anthropic",
    id: spec.model,
    ...(spec.effort === undefined ? {} : { effort: spec.effort }),
    contextWindow: info?.contextWindow ?? null,
    ...(takesImages("anthropic", spec.model) ? { imageInput: ANTHROPIC_IMAGES } : {}),
    async *stream(request) {
      const ctx = { ...context, signal: request.signal }
      if (!client) {
        // The base client: the same requests, without the API's resource classes, which clanka
        // never calls and whose loading cost the agent ~7 ms of CPU (BENCHMARKS).
        const { BaseAnthropic } = await import("@anthropic-ai/sdk/client")
        client = new BaseAnthropic({ apiKey, baseURL, ...sdkClientOptions(context) })
      }
      const sdk = client
      const body = anthropicRequest(spec, info?.maxOutput, request)
      // post(), not messages.create(): create() console.warns on every request to a deprecated
      // model, which would write into clanka's output once per turn.
      const events = await openStream(
        () => sdk.post<Stream<RawMessageStreamEvent>>("/v1/messages", { body, stream: true, signal: request.signal }),
        ctx,
      )
      try {
        yield* mapEvents(events, ctx, request)
      } catch (error) {
        throw malformedEvent(error, ctx)
      }
    },
  }
}

function anthropicRequest(
  spec: ModelSpec,
  maxOutput: number | undefined,
  request: StreamRequest,
): MessageCreateParamsStreaming {
  const maxTokens = maxOutput ?? 32_000
  const tools: ToolUnion[] = request.tools.map((tool, i) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as { type: "object" },
    ...(i === request.tools.length - 1 ? { cache_control: ephemeral } : {}),
  }))
  const body: MessageCreateParamsStreaming = {
    model: spec.model,
    max_tokens: maxTokens,
    stream: true,
    system: [{ type: "text", text: request.system, cache_control: ephemeral }],
    messages: toAnthropicMessages(request.messages),
    ...(tools.length ? { tools } : {}),
  }
  if (spec.effort !== undefined) {
    if (budgetThinking.has(canonicalModelId(spec.model))) {
      const budget = Math.max(1_024, Math.min(budgets[spec.effort] ?? budgets.medium!, maxTokens - 8_192))
      body.thinking = { type: "enabled", budget_tokens: budget }
    } else {
      body.thinking = { type: "adaptive" }
      body.output_config = { effort: spec.effort as "low" }
    }
  }
  return body
}

function toAnthropicMessages(messages: Message[]): MessageParam[] {
  const out: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = []
  const push = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return
    const last = out[out.length - 1]
    if (last?.role === role) last.content.push(...blocks)
    else out.push({ role, content: blocks })
  }
  for (const message of messages) {
    // Images before the text, as Anthropic advises for a user's message; after a script's output.
    if (message.role === "user") push("user", [...imageBlocks(message.images), { type: "text", text: message.content }])
    else if (message.role === "tool") {
      const content = message.images?.length ? [{ type: "text" as const, text: message.content }, ...imageBlocks(message.images)] : message.content
      push("user", [{ type: "tool_result", tool_use_id: message.toolCallId, content }])
    } else {
      const blocks: ContentBlockParam[] = []
      for (const part of message.content) {
        if (part.type === "text") {
          if (part.text !== "") blocks.push({ type: "text", text: part.text })
        } else if (part.type === "tool-call") {
          blocks.push({ type: "tool_use", id: part.id, name: part.name, input: echoedInput(part.input) })
        } else {
          const data = part.providerData as AnthropicReasoningData | undefined
          if (data?.provider !== "anthropic") continue
          if (data.redacted !== undefined) blocks.push({ type: "redacted_thinking", data: data.redacted })
          else if (data.signature !== undefined)
            blocks.push({ type: "thinking", thinking: part.text, signature: data.signature })
        }
      }
      push("assistant", blocks)
    }
  }
  // Cache breakpoints on the newest two user turns: the previous request's prefix is a cache read.
  let marked = 0
  for (let i = out.length - 1; i >= 0 && marked < 2; i--) {
    const message = out[i]!
    if (message.role !== "user") continue
    const last = message.content[message.content.length - 1] as { cache_control?: unknown }
    last.cache_control = ephemeral
    marked++
  }
  return out
}

function imageBlocks(images: readonly ImagePart[] | undefined): ImageBlockParam[] {
  return (images ?? []).map((image) => ({ type: "image", source: { type: "base64", media_type: image.mediaType, data: image.data } }))
}

function stopReason(reason: StopReason | null): "tool" | "end" | "length" | "refusal" {
  if (reason === "tool_use") return "tool"
  if (reason === "refusal") return "refusal"
  if (reason === "max_tokens" || reason === "model_context_window_exceeded") return "length"
  return "end"
}

type Block =
  | { type: "text" }
  | { type: "thinking"; signature: string }
  | { type: "redacted" }
  | { type: "tool"; id: string; name: string; json: string }
  | { type: "other" }

async function* mapEvents(
  events: AsyncIterator<RawMessageStreamEvent>,
  ctx: ErrorContext,
  { onActivity, onUsage }: Pick<StreamRequest, "onActivity" | "onUsage">,
): AsyncIterable<Part> {
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }
  let stop: StopReason | null = null
  let reported = false
  const blocks = new Map<number, Block>()
  for await (const event of sdkEvents(events, ctx, onActivity)) {
    switch (event.type) {
      case "message_start": {
        const u = event.message.usage
        if (!u) break
        reported = true
        usage.inputTokens = u.input_tokens ?? 0
        usage.outputTokens = u.output_tokens ?? 0
        usage.cacheReadTokens = u.cache_read_input_tokens ?? 0
        usage.cacheWriteTokens = u.cache_creation_input_tokens ?? 0
        onUsage?.({ ...usage })
        break
      }
      case "content_block_start": {
        const block = event.content_block
        if (block.type === "text") {
          blocks.set(event.index, { type: "text" })
          yield { type: "text-start" }
          if (block.text) yield { type: "text-delta", delta: block.text }
        } else if (block.type === "thinking") {
          blocks.set(event.index, { type: "thinking", signature: block.signature ?? "" })
          yield { type: "reasoning-start" }
          if (block.thinking) yield { type: "reasoning-delta", delta: block.thinking }
        } else if (block.type === "redacted_thinking") {
          blocks.set(event.index, { type: "redacted" })
          yield { type: "reasoning-start" }
          yield { type: "provider-data", data: { provider: "anthropic", redacted: block.data } }
        } else if (block.type === "tool_use") {
          blocks.set(event.index, { type: "tool", id: block.id, name: block.name, json: "" })
          yield { type: "tool-input-start", id: block.id, name: block.name }
        } else blocks.set(event.index, { type: "other" })
        break
      }
      case "content_block_delta": {
        const block = blocks.get(event.index)
        const delta = event.delta
        if (delta.type === "text_delta" && block?.type === "text") yield { type: "text-delta", delta: delta.text }
        else if (delta.type === "thinking_delta" && block?.type === "thinking")
          yield { type: "reasoning-delta", delta: delta.thinking }
        else if (delta.type === "signature_delta" && block?.type === "thinking") block.signature += delta.signature
        else if (delta.type === "input_json_delta" && block?.type === "tool") {
          block.json += delta.partial_json
          if (delta.partial_json) yield { type: "tool-input-delta", id: block.id, delta: delta.partial_json }
        }
        break
      }
      case "content_block_stop": {
        const block = blocks.get(event.index)
        if (block?.type === "text") yield { type: "text-end" }
        else if (block?.type === "thinking") {
          // An unsigned block (a broken response, or a proxy that does not sign) cannot be echoed:
          // the API refuses it, so it stays without provider data and is shown but not sent back.
          if (block.signature) yield { type: "provider-data", data: { provider: "anthropic", signature: block.signature } }
          yield { type: "reasoning-end" }
        } else if (block?.type === "redacted") yield { type: "reasoning-end" }
        else if (block?.type === "tool") {
          yield { type: "tool-input-end", id: block.id }
          yield { type: "tool-call", id: block.id, name: block.name, input: parseToolInput(block.json) }
        }
        break
      }
      case "message_delta": {
        stop = event.delta.stop_reason ?? stop
        const u = event.usage
        if (!u) break
        reported = true
        if (u.input_tokens != null) usage.inputTokens = u.input_tokens
        if (u.cache_read_input_tokens != null) usage.cacheReadTokens = u.cache_read_input_tokens
        if (u.cache_creation_input_tokens != null) usage.cacheWriteTokens = u.cache_creation_input_tokens
        usage.outputTokens = u.output_tokens
        onUsage?.({ ...usage })
        break
      }
      case "message_stop":
        yield { type: "finish", stop: stopReason(stop), usage: reported ? usage : { ...usage, unreported: true } }
        return
    }
  }
  // The stream ended before its final event.
  throw incompleteStream(ctx)
}
