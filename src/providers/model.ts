/** clanka's provider-neutral transcript and stream; nothing above providers/ imports an SDK. */

export interface TokenUsage {
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  /**
   * True when the API reported no token counts for the response (the counts are then 0): its cost
   * is unknown, so the run's costUsd becomes null and --max-budget-usd stops the run.
   */
  unreported?: true
}

export type Part =
  | { type: "text-start" | "text-end" | "reasoning-start" | "reasoning-end" }
  | { type: "text-delta" | "reasoning-delta"; delta: string }
  /** Streaming of a tool call's input (the execute script), before the complete tool-call. */
  | { type: "tool-input-start"; id: string; name: string }
  | { type: "tool-input-delta"; id: string; delta: string }
  | { type: "tool-input-end"; id: string }
  | { type: "tool-call"; id: string; name: string; input: unknown }
  /** Provider data that must be echoed back on the next request (signatures, encrypted reasoning). */
  | { type: "provider-data"; data: unknown }
  /** `refusal`: the model declined to answer (its safety systems stopped it). */
  | { type: "finish"; stop: "tool" | "end" | "length" | "refusal"; usage: TokenUsage }

export type AssistantContent =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string; providerData?: unknown }
  | { type: "tool-call"; id: string; name: string; input: unknown }

/**
 * An image the model is shown: after a user message's text (--image) or a tool result's (a
 * script's readImage, an MCP tool's image). A saved session keeps all but `data`; resuming reads
 * the file at `path` again and checks it against `sha256` (session/images.ts).
 */
export interface ImagePart {
  mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp"
  /** The bytes, base64. */
  data: string
  /** SHA-256 of the bytes, hex. */
  sha256: string
  width: number
  height: number
  /** Absolute path of the file it was read from; absent for an MCP tool's image. */
  path?: string
  /** Who read it: the agent (--image, a path on this machine), a script (a path on the executor's host), an MCP tool. */
  from: "prompt" | "script" | "mcp"
  /** The MCP tool that returned it (`mcp.server.tool`). */
  tool?: string
}

export type Message =
  | { role: "user"; content: string; images?: ImagePart[] }
  | { role: "assistant"; content: AssistantContent[]; providerData?: unknown }
  | { role: "tool"; toolCallId: string; content: string; images?: ImagePart[] }

export interface ImageInput {
  /** The largest image file the API takes, in bytes. */
  maxBytes: number
  /** The longest side in pixels the API takes, when it refuses larger images (rather than scaling them). */
  maxSide?: number
}

export interface ToolSpec {
  name: string
  description: string
  /** JSON Schema of the tool's input. */
  inputSchema: Record<string, unknown>
}

export interface StreamRequest {
  system: string
  messages: Message[]
  tools: ToolSpec[]
  signal: AbortSignal
  /**
   * Called for every event the provider receives from the API, including those that map to no
   * Part (pings, block and message boundaries, usage-only chunks): the agent's turn inactivity
   * timer is reset by it.
   */
  onActivity?: () => void
  /**
   * Called with the token counts received so far, when the API reports them before its final
   * event (Anthropic's message_start, a Chat Completions usage chunk): a response the agent cuts
   * short (steering) still counts them. The `finish` part carries the final counts.
   */
  onUsage?: (usage: TokenUsage) => void
}

export interface Model {
  provider: string
  id: string
  /** Reasoning effort, when the spec named one (`provider/model:effort`). */
  effort?: string
  /** Context window in tokens, or null when unknown. */
  contextWindow: number | null
  /** Image input the model takes; absent when it takes none (a request with an image would fail). */
  imageInput?: ImageInput
  stream(request: StreamRequest): AsyncIterable<Part>
}

/**
 * A failed model request. Providers translate SDK errors into this; the agent loop retries when
 * `retryable` (429, 5xx, overloaded, network) and ends the run otherwise (400/401/403/404).
 */
export class ModelError extends Error {
  override name = "ModelError"
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** How long the server asked to wait before a retry (Retry-After), when it said so sanely. */
    readonly retryAfterMs?: number,
  ) {
    super(message)
  }
}
