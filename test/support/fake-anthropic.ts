/**
 * A fake Anthropic Messages API: `startFakeAnthropic(turns)` → `{ url, env, requests, close() }`.
 * POST /v1/messages answers with the real SSE stream: message_start, ping, per block
 * content_block_start / content_block_delta (text_delta, thinking_delta then one signature_delta,
 * input_json_delta) / content_block_stop, message_delta (stop_reason, usage), message_stop.
 * Errors carry Anthropic's body `{type: "error", error: {type, message}}` with the type of the
 * status (429 rate_limit_error, 529 overloaded_error, 401 authentication_error, …).
 * Tool use ids are `toolu_<request>_<block>` unless the block names one. Turns and the
 * neutral request views are described in fake-model.ts.
 */
import type { FakeBlock, FakeImage, FakeReply, FakeRequest, FakeServer, FakeTurn, FormatSpec } from "./fake-model.ts"
import { blockInput, deltas, reportsUsage, sse, splitChunks, startFormatServer, stopOf, usageOf } from "./fake-model.ts"

const errorTypes: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
}

const ev = (data: { type: string }) => sse(data, data.type)

function start(request: FakeRequest, usage: ReturnType<typeof usageOf> | null): string[] {
  return [
    ev({
      type: "message_start",
      message: {
        id: `msg_${request.index}`,
        type: "message",
        role: "assistant",
        model: request.body?.model ?? "fake",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        ...(usage
          ? {
              usage: {
                input_tokens: usage.input,
                output_tokens: 1,
                cache_read_input_tokens: usage.cacheRead,
                cache_creation_input_tokens: usage.cacheWrite,
              },
            }
          : {}),
      },
    } as { type: string }),
    ev({ type: "ping" }),
  ]
}

function blockFrames(block: FakeBlock, index: number, request: FakeRequest): string[] {
  const frames: string[] = []
  const delta = (delta: unknown) => frames.push(ev({ type: "content_block_delta", index, delta } as { type: string }))
  if (block.type === "text") {
    frames.push(ev({ type: "content_block_start", index, content_block: { type: "text", text: "" } } as { type: string }))
    for (const text of deltas(block.text)) delta({ type: "text_delta", text })
  } else if (block.type === "reasoning") {
    frames.push(
      ev({
        type: "content_block_start",
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      } as { type: string }),
    )
    for (const thinking of deltas(block.text)) delta({ type: "thinking_delta", thinking })
    delta({ type: "signature_delta", signature: block.signature ?? `sig_${request.index}_${index}` })
  } else {
    const { name, json } = blockInput(block)
    const id = block.id ?? `toolu_${request.index}_${index}`
    frames.push(
      ev({ type: "content_block_start", index, content_block: { type: "tool_use", id, name, input: {} } } as {
        type: string
      }),
    )
    for (const partial_json of splitChunks(json, block.chunks)) delta({ type: "input_json_delta", partial_json })
  }
  frames.push(ev({ type: "content_block_stop", index } as { type: string }))
  return frames
}

const stopReasons = { tool: "tool_use", end: "end_turn", length: "max_tokens", refusal: "refusal" } as const

const format: FormatSpec = {
  provider: "anthropic",
  path: "/v1/messages",
  baseUrl: (origin) => origin,
  env: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "test-key" }),
  view(body) {
    const system = typeof body.system === "string" ? body.system : (body.system ?? []).map((b: any) => b.text).join("")
    const messages: any[] = body.messages ?? []
    const last = messages[messages.length - 1]
    const toolResults =
      last?.role === "user" && Array.isArray(last.content)
        ? last.content
            .filter((b: any) => b.type === "tool_result")
            .map((b: any) =>
              typeof b.content === "string" ? b.content : (b.content ?? []).map((c: any) => c.text ?? "").join(""),
            )
        : []
    let lastUserText: string | null = null
    for (const m of messages) {
      if (m.role !== "user") continue
      if (typeof m.content === "string") lastUserText = m.content
      else for (const b of m.content) if (b.type === "text") lastUserText = b.text
    }
    const images: FakeImage[] = []
    const image = (block: any, where: FakeImage["in"]) => images.push({ in: where, mediaType: block.source?.media_type, data: block.source?.data })
    for (const m of messages) {
      if (m.role !== "user" || !Array.isArray(m.content)) continue
      for (const b of m.content) {
        if (b.type === "image") image(b, "user")
        else if (b.type === "tool_result" && Array.isArray(b.content)) for (const c of b.content) if (c.type === "image") image(c, "tool")
      }
    }
    return { system, toolNames: (body.tools ?? []).map((t: any) => t.name), toolResults, lastUserText, images }
  },
  frames(reply: FakeReply, request) {
    const usage = reportsUsage(reply) ? usageOf(reply) : null
    return [
      ...start(request, usage),
      ...reply.blocks.flatMap((block, i) => blockFrames(block, i, request)),
      ev({
        type: "message_delta",
        delta: { stop_reason: stopReasons[stopOf(reply)], stop_sequence: null },
        ...(usage
          ? {
              usage: {
                input_tokens: usage.input,
                output_tokens: usage.output,
                cache_read_input_tokens: usage.cacheRead,
                cache_creation_input_tokens: usage.cacheWrite,
              },
            }
          : {}),
      } as { type: string }),
      ev({ type: "message_stop" }),
    ]
  },
  partialFrames(blocks, request) {
    return [...start(request, usageOf({ blocks })), ...blocks.flatMap((block, i) => blockFrames(block, i, request))]
  },
  errorBody(status, message, type) {
    return { type: "error", error: { type: type ?? errorTypes[status] ?? "api_error", message } }
  },
}

export function startFakeAnthropic(turns: FakeTurn[]): Promise<FakeServer> {
  return startFormatServer(format, turns)
}
