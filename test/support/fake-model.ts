/**
 * Fake model servers: scripted turns in one provider-neutral form, served in each provider's real
 * streaming wire format, so the real SDKs (and so clanka's providers) talk to them unchanged.
 *
 *   import { startFakeModel, type FakeTurn } from "../support/fake-model.ts"
 *   const turns: FakeTurn[] = [
 *     { blocks: [{ type: "reasoning", text: "Look first." }, { type: "execute", script: "console.log(1)" }],
 *       usage: { input: 100, output: 20, cacheRead: 50, cacheWrite: 10 } },
 *     (request) => ({ blocks: [{ type: "text", text: `saw ${request.toolResults[0]}` }] }),
 *     { error: { status: 529 } },                       // provider-shaped error body
 *     { stall: { blocks: [{ type: "text", text: "hal" }] } }, // headers + these events, then silence
 *     { drop: { blocks: [] } },                         // some events, then the body ends early
 *     { raw: { status: 200, body: "data: 5\n\n" } },        // exactly these bytes (hostile endpoints)
 *   ]
 *   const server = await startFakeModel("anthropic", turns) // or "openai", "openai-compatible"
 *   const model = resolveModel(`${server.provider}/fake-model`, server.env)
 *   …
 *   server.requests[0].body.system / .headers["x-api-key"] / .toolResults / .system / .toolNames / .images
 *   await server.close()
 *
 * Or per format: startFakeAnthropic(turns) (fake-anthropic.ts), startFakeOpenAI(turns) for the
 * Responses API and startFakeChatCompletions(turns) (fake-openai.ts). Each listens on 127.0.0.1
 * port 0; `url` is the SDK's base URL (`http://127.0.0.1:P` for Anthropic, `…/v1` for OpenAI) and
 * `env` holds the variables resolveModel needs (base URL and key "test-key").
 *
 * Turns are used in order, one per request; a request after the last turn gets a 400 error that
 * says so. A reply's stop reason defaults to "tool" when it has an execute/tool-call block,
 * else "end". Text, reasoning and execute blocks stream in one delta each unless `text` is an
 * array (one delta per element) or `chunks` splits the execute call's JSON argument text.
 * `delayMs` waits between events (for timing tests).
 */
import type { Server } from "bun"
import { startFakeAnthropic } from "./fake-anthropic.ts"
import { startFakeChatCompletions, startFakeOpenAI } from "./fake-openai.ts"
import { SUBAGENT_NOTE } from "../../src/agent/system-prompt.ts"

export type FakeBlock =
  | { type: "text"; text: string | string[] }
  /** `signature`: Anthropic's thinking signature / OpenAI's encrypted reasoning (default derived). */
  | { type: "reasoning"; text: string | string[]; signature?: string }
  /** A call of the `execute` tool with `{script}`; its JSON argument streams in `chunks` pieces. */
  | { type: "execute"; script: string; id?: string; chunks?: number }
  /** `json`: the argument text sent instead of `input`'s JSON (invalid or cut-off JSON on purpose). */
  | { type: "tool-call"; name: string; input?: unknown; json?: string; id?: string; chunks?: number }

/** Token counts as clanka reports them: `input` is uncached input. */
export interface FakeUsage {
  input?: number
  output?: number
  cacheRead?: number
  cacheWrite?: number
}

export interface FakeReply {
  blocks: FakeBlock[]
  /** null: the response carries no token counts at all (a broken or stripped-down endpoint). */
  usage?: FakeUsage | null
  /** `refusal`: Anthropic's stop_reason "refusal", OpenAI's content_filter. */
  stop?: "end" | "tool" | "length" | "refusal"
  delayMs?: number
}
export interface FakeError {
  error: { status: number; message?: string; type?: string; body?: unknown; headers?: Record<string, string> }
}
export interface FakeStall {
  stall: { blocks?: FakeBlock[] }
}
export interface FakeDrop {
  drop: { blocks?: FakeBlock[] }
}
/**
 * Whatever a hostile or broken endpoint answers, byte for byte: a status, headers and a body (a
 * string, bytes, or a stream the test writes). The body is sent as it is, so `frames` of SSE text
 * may be malformed on purpose; `content-type` defaults to text/event-stream.
 */
export interface FakeRaw {
  raw: { status?: number; headers?: Record<string, string>; body: string | Uint8Array | ReadableStream<Uint8Array> }
}
export type FakeTurn =
  | FakeReply
  | FakeError
  | FakeStall
  | FakeDrop
  | FakeRaw
  | ((request: FakeRequest) => FakeTurn | Promise<FakeTurn>)

export interface FakeRequest {
  /** 0-based position of this request. */
  index: number
  method: string
  path: string
  /** Lower-cased header names. */
  headers: Record<string, string>
  // biome-ignore lint: the raw wire body, whatever the SDK sent
  body: any
  /** Provider-neutral views of the body. */
  system: string
  toolNames: string[]
  /** Tool results sent since the last assistant message, in order. */
  toolResults: string[]
  /** The last user text in the conversation, or null. */
  lastUserText: string | null
  /**
   * Every image in the request, in order: where it is (a user message, or a tool result) and what
   * it carries, read from the provider's own block (base64 `data`, also from a data URL).
   */
  images: FakeImage[]
}

export interface FakeImage {
  in: "user" | "tool"
  mediaType: string
  data: string
}

/** A data URL's media type and base64 text. */
export function fromDataUrl(url: string, where: FakeImage["in"]): FakeImage {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  if (!match) throw new Error(`fake model server: not a base64 data URL: ${url.slice(0, 60)}`)
  return { in: where, mediaType: match[1]!, data: match[2]! }
}

export interface FakeServer {
  provider: "anthropic" | "openai" | "openai-compatible"
  url: string
  env: Record<string, string>
  requests: FakeRequest[]
  close(): Promise<void>
}

export type FakeProvider = FakeServer["provider"]

export function startFakeModel(provider: FakeProvider, turns: FakeTurn[]): Promise<FakeServer> {
  if (provider === "anthropic") return startFakeAnthropic(turns)
  if (provider === "openai") return startFakeOpenAI(turns)
  return startFakeChatCompletions(turns)
}

export const fakeProviders: readonly FakeProvider[] = ["anthropic", "openai", "openai-compatible"]

// ---- shared machinery for the format files ----

/** One SSE frame. */
export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`
}

export function deltas(text: string | string[]): string[] {
  return Array.isArray(text) ? text : text === "" ? [] : [text]
}

export function splitChunks(text: string, chunks = 1): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, chunks)))
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

export function blockInput(block: FakeBlock & { type: "execute" | "tool-call" }): { name: string; json: string } {
  return block.type === "execute"
    ? { name: "execute", json: JSON.stringify({ script: block.script }) }
    : { name: block.name, json: block.json ?? JSON.stringify(block.input) }
}

export function stopOf(reply: FakeReply): "end" | "tool" | "length" | "refusal" {
  return reply.stop ?? (reply.blocks.some((b) => b.type === "execute" || b.type === "tool-call") ? "tool" : "end")
}

/** Whether clanka sent this request for a sub-agent (its system prompt carries the sub-agent note). */
export function fromSubagent(request: FakeRequest): boolean {
  return request.system.includes(SUBAGENT_NOTE)
}

/** Whether the reply carries token counts on the wire. */
export function reportsUsage(reply: FakeReply): boolean {
  return reply.usage !== null
}

export function usageOf(reply: FakeReply): Required<FakeUsage> {
  return { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, ...reply.usage }
}

export interface FormatSpec {
  provider: FakeProvider
  /** Path suffix served, e.g. "/v1/messages". */
  path: string
  /** Base URL the SDK needs, from the server's origin. */
  baseUrl(origin: string): string
  env(baseUrl: string): Record<string, string>
  /** The neutral views of a request body. */
  view(body: any): Pick<FakeRequest, "system" | "toolNames" | "toolResults" | "lastUserText" | "images">
  /** All SSE frames of a complete reply. */
  frames(reply: FakeReply, request: FakeRequest): string[]
  /** Frames of a partial reply: the opening events and these blocks, no ending. */
  partialFrames(blocks: FakeBlock[], request: FakeRequest): string[]
  errorBody(status: number, message: string, type?: string): unknown
}

function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value
  })
  return out
}

export async function startFormatServer(format: FormatSpec, turns: FakeTurn[]): Promise<FakeServer> {
  const requests: FakeRequest[] = []
  const hanging = new Set<ReadableStreamDefaultController>()
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname
      if (req.method !== "POST" || path !== format.path)
        return Response.json(format.errorBody(404, `fake model server: no route ${req.method} ${path}`), {
          status: 404,
        })
      const body = await req.json()
      const request: FakeRequest = {
        index: requests.length,
        method: req.method,
        path,
        headers: headerRecord(req.headers),
        body,
        ...format.view(body),
      }
      requests.push(request)
      let turn = turns[request.index]
      while (typeof turn === "function") turn = await turn(request)
      if (turn === undefined)
        return Response.json(
          format.errorBody(400, `fake model server: no scripted turn left for request #${request.index + 1}`),
          { status: 400 },
        )
      if ("error" in turn) {
        const { status, message, type, body: raw, headers } = turn.error
        const errorBody = raw ?? format.errorBody(status, message ?? `fake error ${status}`, type)
        return Response.json(errorBody, { status, headers: { "request-id": `req_${request.index}`, ...headers } })
      }
      if ("raw" in turn) {
        const { status = 200, headers, body: rawBody } = turn.raw
        return new Response(rawBody, { status, headers: { "content-type": "text/event-stream", "request-id": `req_${request.index}`, ...headers } })
      }
      let frames: string[]
      let ending: "close" | "hang" | "drop" = "close"
      let delayMs = 0
      if ("stall" in turn) {
        frames = format.partialFrames(turn.stall.blocks ?? [], request)
        ending = "hang"
      } else if ("drop" in turn) {
        frames = format.partialFrames(turn.drop.blocks ?? [], request)
        ending = "drop"
      } else {
        frames = format.frames(turn, request)
        delayMs = turn.delayMs ?? 0
      }
      const encoder = new TextEncoder()
      const stream = new ReadableStream({
        async start(controller) {
          for (const frame of frames) {
            if (delayMs > 0) await Bun.sleep(delayMs)
            try {
              controller.enqueue(encoder.encode(frame))
            } catch {
              return // the client went away
            }
          }
          // A drop ends the body early, without the final event: what a broken connection looks like
          // to the SDK, without the server logging an error.
          if (ending === "close" || ending === "drop") controller.close()
          else hanging.add(controller)
        },
        cancel() {},
      })
      return new Response(stream, {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": `req_${request.index}` },
      })
    },
  })
  const baseUrl = format.baseUrl(`http://127.0.0.1:${server.port}`)
  return {
    provider: format.provider,
    url: baseUrl,
    env: format.env(baseUrl),
    requests,
    async close() {
      for (const controller of hanging) {
        try {
          controller.close()
        } catch {}
      }
      await server.stop(true)
    },
  }
}
