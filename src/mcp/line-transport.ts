/**
 * The stdio transport of `clanka mcp`: one JSON-RPC message per line, read with the executor
 * protocol's framing. Unlike a transport that drops what it cannot parse, every line that is not a
 * message gets its JSON-RPC error — a line too long (answered, then skipped up to its end), not
 * JSON (-32700), not a request (-32600), params that are not an object (-32602) — and the server
 * goes on serving. Only the end of stdin closes it. While stdout is full (a client that does not
 * read), stdin is not read either, so answers cannot pile up in memory.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { LineWriter, readFrames, type Sink } from "../protocol/framing.ts"

const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600
const INVALID_PARAMS = -32602

export class LineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private readonly writer: LineWriter
  private closed = false

  constructor(
    private readonly input: AsyncIterable<Uint8Array | string>,
    output: Sink,
  ) {
    this.writer = new LineWriter(output)
  }

  async start(): Promise<void> {
    void this.read()
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.writer.send(message)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.writer.flush()
    this.onclose?.()
  }

  private async read(): Promise<void> {
    try {
      for await (const frame of readFrames(this.input)) {
        if (this.closed) break
        if ("tooLong" in frame) this.refuse(null, INVALID_REQUEST, `request too large: a line may hold at most ${frame.limit / 2 ** 20} MiB`)
        else this.take(frame.line)
        // A client that does not read its answers gets no more read from it until it does: each
        // request makes an answer (a tools/list one of many KiB), which would pile up here.
        await this.writer.drained
      }
    } catch (error) {
      this.onerror?.(error as Error)
    }
    await this.close()
  }

  private take(line: string): void {
    let message: unknown
    try {
      message = JSON.parse(line)
    } catch {
      return this.refuse(null, PARSE_ERROR, "parse error: the line is not valid JSON")
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      return this.refuse(null, INVALID_REQUEST, "invalid request: not a JSON-RPC message object (batches are not supported)")
    }
    const { jsonrpc, id, method, params } = message as Record<string, unknown>
    const usableId = typeof id === "string" || typeof id === "number" ? id : null
    const isResponse = method === undefined && usableId !== null && ("result" in message || "error" in message)
    if (jsonrpc !== "2.0" || (!isResponse && typeof method !== "string")) {
      return this.refuse(usableId, INVALID_REQUEST, 'invalid request: needs "jsonrpc": "2.0" and a string "method"')
    }
    if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
      // A notification is never answered, even when it is wrong.
      if (id === undefined) return
      return this.refuse(usableId, INVALID_PARAMS, `invalid params for ${String(method)}: params must be an object`)
    }
    this.onmessage?.(message as JSONRPCMessage)
  }

  private refuse(id: string | number | null, code: number, message: string): void {
    void this.writer.send({ jsonrpc: "2.0", id, error: { code, message } })
  }
}
