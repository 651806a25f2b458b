/**
 * Fake OpenAI APIs, each `(turns) → { url, env, requests, close() }` (turns: see fake-model.ts):
 *
 * - `startFakeOpenAI(turns)`: POST /v1/responses with the Responses SSE stream: response.created,
 *   response.in_progress, per output item response.output_item.added, then for reasoning
 *   response.reasoning_summary_part.added / response.reasoning_summary_text.delta / …done, for
 *   text response.content_part.added / response.output_text.delta / …done, for a function call
 *   response.function_call_arguments.delta / …done, then response.output_item.done (reasoning
 *   items carry `encrypted_content`, the block's `signature` or `enc_<request>_<index>`), and
 *   response.completed with usage (or response.incomplete for stop "length").
 *   Call ids are `call_<request>_<block>`.
 * - `startFakeChatCompletions(turns)`: POST /v1/chat/completions with chat.completion.chunk
 *   events: reasoning as `delta.reasoning_content`, text as `delta.content`, tool calls as
 *   `delta.tool_calls` by index, a finish_reason chunk, a usage chunk, `data: [DONE]`.
 *
 * Usage on the wire counts cached tokens inside the input, as OpenAI does:
 * input_tokens = input + cacheRead + cacheWrite.
 * Errors carry OpenAI's body `{error: {message, type, param, code}}`.
 */
import type { FakeBlock, FakeImage, FakeReply, FakeRequest, FakeServer, FakeTurn, FormatSpec } from "./fake-model.ts"
import { blockInput, deltas, fromDataUrl, reportsUsage, sse, splitChunks, startFormatServer, stopOf, usageOf } from "./fake-model.ts"

const errorTypes: Record<number, [string, string | null]> = {
  400: ["invalid_request_error", null],
  401: ["invalid_request_error", "invalid_api_key"],
  403: ["invalid_request_error", "unsupported_country_region_territory"],
  404: ["invalid_request_error", "model_not_found"],
  429: ["requests", "rate_limit_exceeded"],
  500: ["server_error", null],
  503: ["server_error", null],
}

function errorBody(status: number, message: string, type?: string) {
  const [defaultType, code] = errorTypes[status] ?? ["server_error", null]
  return { error: { message, type: type ?? defaultType, param: null, code } }
}

const openaiEnv = (url: string) => ({ OPENAI_BASE_URL: url, OPENAI_API_KEY: "test-key" })

// ---- Responses API ----

function responsesFrames(blocks: FakeBlock[], request: FakeRequest, reply: FakeReply | null): string[] {
  let seq = 0
  const frames: string[] = []
  const emit = (data: Record<string, unknown> & { type: string }) =>
    frames.push(sse({ ...data, sequence_number: seq++ }, data.type))
  const response = (status: string, output: unknown[], extra: Record<string, unknown> = {}) => ({
    id: `resp_${request.index}`,
    object: "response",
    created_at: 1_700_000_000,
    model: request.body?.model ?? "fake",
    status,
    output,
    error: null,
    incomplete_details: null,
    usage: null,
    ...extra,
  })
  emit({ type: "response.created", response: response("in_progress", []) })
  emit({ type: "response.in_progress", response: response("in_progress", []) })
  const output: unknown[] = []
  blocks.forEach((block, output_index) => {
    if (block.type === "reasoning") {
      const id = `rs_${request.index}_${output_index}`
      const text = deltas(block.text).join("")
      emit({ type: "response.output_item.added", output_index, item: { type: "reasoning", id, summary: [] } })
      if (text !== "") {
        const part = { item_id: id, output_index, summary_index: 0 }
        emit({ type: "response.reasoning_summary_part.added", ...part, part: { type: "summary_text", text: "" } })
        for (const delta of deltas(block.text)) emit({ type: "response.reasoning_summary_text.delta", ...part, delta })
        emit({ type: "response.reasoning_summary_text.done", ...part, text })
        emit({ type: "response.reasoning_summary_part.done", ...part, part: { type: "summary_text", text } })
      }
      const item = {
        type: "reasoning",
        id,
        summary: text === "" ? [] : [{ type: "summary_text", text }],
        encrypted_content: block.signature ?? `enc_${request.index}_${output_index}`,
      }
      emit({ type: "response.output_item.done", output_index, item })
      output.push(item)
    } else if (block.type === "text") {
      const id = `msg_${request.index}_${output_index}`
      const text = deltas(block.text).join("")
      const message = { type: "message", id, role: "assistant", status: "in_progress", content: [] as unknown[] }
      emit({ type: "response.output_item.added", output_index, item: message })
      const part = { item_id: id, output_index, content_index: 0 }
      emit({ type: "response.content_part.added", ...part, part: { type: "output_text", text: "", annotations: [] } })
      for (const delta of deltas(block.text)) emit({ type: "response.output_text.delta", ...part, delta, logprobs: [] })
      emit({ type: "response.output_text.done", ...part, text, logprobs: [] })
      const done = { type: "output_text", text, annotations: [] }
      emit({ type: "response.content_part.done", ...part, part: done })
      const item = { ...message, status: "completed", content: [done] }
      emit({ type: "response.output_item.done", output_index, item })
      output.push(item)
    } else {
      const { name, json } = blockInput(block)
      const id = `fc_${request.index}_${output_index}`
      const call = { type: "function_call", id, call_id: block.id ?? `call_${request.index}_${output_index}`, name }
      emit({ type: "response.output_item.added", output_index, item: { ...call, arguments: "", status: "in_progress" } })
      for (const delta of splitChunks(json, block.chunks))
        emit({ type: "response.function_call_arguments.delta", item_id: id, output_index, delta })
      emit({ type: "response.function_call_arguments.done", item_id: id, output_index, name, arguments: json })
      const item = { ...call, arguments: json, status: "completed" }
      emit({ type: "response.output_item.done", output_index, item })
      output.push(item)
    }
  })
  if (reply) {
    const u = usageOf(reply)
    const usage = !reportsUsage(reply) ? null : {
      input_tokens: u.input + u.cacheRead + u.cacheWrite,
      input_tokens_details: { cached_tokens: u.cacheRead, cache_write_tokens: u.cacheWrite },
      output_tokens: u.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: u.input + u.cacheRead + u.cacheWrite + u.output,
    }
    if (stopOf(reply) === "length" || stopOf(reply) === "refusal")
      emit({
        type: "response.incomplete",
        response: response("incomplete", output, { usage, incomplete_details: { reason: stopOf(reply) === "length" ? "max_output_tokens" : "content_filter" } }),
      })
    else emit({ type: "response.completed", response: response("completed", output, { usage }) })
  }
  return frames
}

function lastUserText(items: any[]): string | null {
  let text: string | null = null
  for (const item of items) {
    if (item.role !== "user") continue
    if (typeof item.content === "string") text = item.content
    else for (const c of item.content ?? []) if (typeof c.text === "string") text = c.text
  }
  return text
}

const responsesFormat: FormatSpec = {
  provider: "openai",
  path: "/v1/responses",
  baseUrl: (origin) => `${origin}/v1`,
  env: openaiEnv,
  view(body) {
    const input: any[] = typeof body.input === "string" ? [{ role: "user", content: body.input }] : (body.input ?? [])
    const toolResults: string[] = []
    for (const item of input) {
      if (item.type === "function_call_output")
        toolResults.push(
          typeof item.output === "string" ? item.output : item.output.map((c: any) => (c.type === "input_text" ? c.text : "")).join(""),
        )
      else if (item.role === "assistant" || item.type === "function_call" || item.type === "reasoning")
        toolResults.length = 0
    }
    const images: FakeImage[] = []
    for (const item of input) {
      const parts = item.role === "user" && Array.isArray(item.content) ? item.content : item.type === "function_call_output" && Array.isArray(item.output) ? item.output : []
      const where = item.role === "user" ? "user" : "tool"
      for (const c of parts) if (c.type === "input_image") images.push(fromDataUrl(c.image_url, where))
    }
    return {
      system: body.instructions ?? "",
      toolNames: (body.tools ?? []).map((t: any) => t.name),
      toolResults,
      lastUserText: lastUserText(input),
      images,
    }
  },
  frames: (reply, request) => responsesFrames(reply.blocks, request, reply),
  partialFrames: (blocks, request) => responsesFrames(blocks, request, null),
  errorBody,
}

export function startFakeOpenAI(turns: FakeTurn[]): Promise<FakeServer> {
  return startFormatServer(responsesFormat, turns)
}

// ---- Chat Completions ----

function chatFrames(blocks: FakeBlock[], request: FakeRequest, reply: FakeReply | null): string[] {
  const frames: string[] = []
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    frames.push(
      sse({
        id: `chatcmpl_${request.index}`,
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model: request.body?.model ?? "fake",
        choices,
        ...extra,
      }),
    )
  const delta = (delta: Record<string, unknown>) => chunk([{ index: 0, delta, finish_reason: null }])
  delta({ role: "assistant", content: "" })
  let callIndex = 0
  blocks.forEach((block, i) => {
    if (block.type === "reasoning") for (const d of deltas(block.text)) delta({ reasoning_content: d })
    else if (block.type === "text") for (const d of deltas(block.text)) delta({ content: d })
    else {
      const { name, json } = blockInput(block)
      const index = callIndex++
      const id = block.id ?? `call_${request.index}_${i}`
      delta({ tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] })
      for (const args of splitChunks(json, block.chunks)) delta({ tool_calls: [{ index, function: { arguments: args } }] })
    }
  })
  if (reply) {
    const finish = { tool: "tool_calls", end: "stop", length: "length", refusal: "content_filter" }[stopOf(reply)]
    chunk([{ index: 0, delta: {}, finish_reason: finish }])
    const u = usageOf(reply)
    const prompt = u.input + u.cacheRead
    if (reportsUsage(reply)) chunk([], {
      usage: {
        prompt_tokens: prompt,
        completion_tokens: u.output,
        total_tokens: prompt + u.output,
        prompt_tokens_details: { cached_tokens: u.cacheRead },
      },
    })
    frames.push(sse("[DONE]"))
  }
  return frames
}

const chatFormat: FormatSpec = {
  provider: "openai-compatible",
  path: "/v1/chat/completions",
  baseUrl: (origin) => `${origin}/v1`,
  env: openaiEnv,
  view(body) {
    const messages: any[] = body.messages ?? []
    const toolResults: string[] = []
    for (const m of messages) {
      if (m.role === "tool") toolResults.push(typeof m.content === "string" ? m.content : JSON.stringify(m.content))
      else if (m.role === "assistant") toolResults.length = 0
    }
    const system = messages.filter((m) => m.role === "system" || m.role === "developer").map((m) => m.content)
    // Chat Completions has images in user messages only.
    const images = messages.flatMap((m) => (m.role === "user" && Array.isArray(m.content) ? m.content.filter((c: any) => c.type === "image_url").map((c: any) => fromDataUrl(c.image_url.url, "user")) : []))
    return {
      system: system.join("\n"),
      toolNames: (body.tools ?? []).map((t: any) => t.function?.name),
      toolResults,
      lastUserText: lastUserText(messages),
      images,
    }
  },
  frames: (reply, request) => chatFrames(reply.blocks, request, reply),
  partialFrames: (blocks, request) => chatFrames(blocks, request, null),
  errorBody,
}

export function startFakeChatCompletions(turns: FakeTurn[]): Promise<FakeServer> {
  return startFormatServer(chatFormat, turns)
}
