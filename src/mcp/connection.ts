/**
 * One connection to an MCP server through the official SDK's Client: started with a time limit,
 * its tools listed, calls made with the script's cancellation, and a server that goes away
 * reported by name (with the last line it wrote to stderr) instead of hanging the caller.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { ExecuteOptions } from "../contract.ts"
import { ToolError } from "../errors.ts"
import { errorMessage } from "../util/error-message.ts"
import { redactExpanded } from "../config/secret-values.ts"
import { VERSION } from "../version.ts"
import { visible } from "../output/visible.ts"
import { assignJsNames, type McpToolInfo } from "./declarations.ts"
import { convertResult, type McpImages } from "./tools.ts"

export const DEFAULT_STARTUP_TIMEOUT_SEC = 10
/** A tool call may run as long as a script may (the SDK's own default is 60 s). */
const CALL_TIMEOUT_MS = 10 * 60 * 1000
/** More tools than any server has: a tools/list whose pages never end stops here, not when memory runs out. */
const MAX_TOOLS = 10_000
/** How long a server whose stream broke has to answer a ping. */
const PING_TIMEOUT_MS = 5000

export class McpConnection {
  tools: McpToolInfo[] = []
  /** Why the server is gone, once it is. */
  private gone: string | undefined
  private readonly client = new Client({ name: "clanka", version: VERSION })
  /** The calls waiting for an answer: a server found gone fails them at once. */
  private readonly inFlight = new Set<(error: Error) => void>()

  constructor(
    readonly server: string,
    private readonly transport: Transport,
    /** The last lines the server wrote on stderr, for messages about its end (stdio only). */
    private readonly stderrTail?: () => string | undefined,
  ) {}

  /** Connects and lists the tools within `timeoutSec`; rejects with one line saying why not. */
  async start(timeoutSec = DEFAULT_STARTUP_TIMEOUT_SEC): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ToolError(`did not start within ${timeoutSec} s`)), timeoutSec * 1000)
    })
    try {
      await Promise.race([this.connectAndList(), timeout])
    } catch (error) {
      const reason = this.explain(error)
      // The SDK gives a server 2 s to leave after its stdin closes, then kills it: not worth waiting for.
      void this.close()
      throw new ToolError(reason)
    } finally {
      clearTimeout(timer)
    }
  }

  private async connectAndList(): Promise<void> {
    this.client.onclose = () => {
      this.gone ??= this.stderrTail ? "exited" : "closed the connection"
    }
    // Over HTTP a server that dies mid-call only breaks the call's event stream (the SDK may try to
    // resume it, and its request would wait forever): ask the server whether it is still there.
    this.client.onerror = (error) => {
      // The SDK's stdio transport stops a server whose message outgrows its buffer: say so, not "exited".
      const tooLarge = errorMessage(error).match(/ReadBuffer exceeded maximum size of (\d+) bytes/)
      if (tooLarge) this.gone ??= `was stopped for sending a message over ${Number(tooLarge[1]) / 2 ** 20} MiB (a result too large to take)`
      if (this.inFlight.size > 0 && /SSE stream disconnected|reconnect/i.test(errorMessage(error))) void this.checkAlive()
    }
    await this.client.connect(this.transport)
    const listed: McpToolInfo[] = []
    let cursor: string | undefined
    do {
      const page = await this.client.listTools(cursor === undefined ? {} : { cursor })
      for (const tool of page.tools) {
        // A tool that can only run as an MCP task (experimental) cannot be called as a function.
        if (tool.execution?.taskSupport === "required") continue
        listed.push({ server: this.server, name: tool.name, jsName: tool.name, description: tool.description, inputSchema: tool.inputSchema, ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}) })
      }
      cursor = page.nextCursor
      if (listed.length > MAX_TOOLS) throw new ToolError(`lists more than ${MAX_TOOLS} tools (its tools/list pages do not end)`)
    } while (cursor)
    const jsNames = assignJsNames(listed.map((tool) => tool.name))
    this.tools = listed.map((tool, i) => ({ ...tool, jsName: jsNames[i]! }))
  }

  /**
   * Calls a tool; the result converted for scripts, an `isError` result or a lost server thrown.
   * Images in the result go where the execute's `images` policy says.
   */
  async call(name: string, args: Record<string, unknown>, signal?: AbortSignal, images?: ExecuteOptions["images"]): Promise<unknown> {
    if (this.gone) throw new ToolError(redactExpanded(`the MCP server "${this.server}" is not running: it ${this.gone}${this.tail()}`))
    let result
    let fail: ((error: Error) => void) | undefined
    const lost = new Promise<never>((_, reject) => this.inFlight.add((fail = reject)))
    try {
      result = await Promise.race([this.client.callTool({ name, arguments: args }, undefined, { signal, timeout: CALL_TIMEOUT_MS, resetTimeoutOnProgress: true }), lost])
    } catch (error) {
      if (signal?.aborted) throw error
      // Its message may quote what carries a token of the config (a URL, the server's last words).
      if (this.gone) throw new ToolError(redactExpanded(`the MCP server "${this.server}" ${this.gone} during the call${this.tail()}`))
      throw new ToolError(redactExpanded(errorMessage(error).replace(/^MCP error -?\d+: /, "")))
    } finally {
      this.inFlight.delete(fail!)
    }
    const jsName = this.tools.find((tool) => tool.name === name)?.jsName ?? name
    const shown: McpImages | undefined = images ? { policy: images, tool: `mcp.${this.server}.${jsName}` } : undefined
    return convertResult(result as { content?: unknown; structuredContent?: unknown; isError?: unknown }, shown)
  }

  /** A ping that fails in time means the server is gone: the calls waiting on it fail. */
  private async checkAlive(): Promise<void> {
    try {
      await this.client.ping({ timeout: PING_TIMEOUT_MS })
    } catch (error) {
      this.gone ??= `stopped answering (${oneLine(errorMessage(error))})`
      for (const fail of this.inFlight) fail(new Error(this.gone))
    }
  }

  async close(): Promise<void> {
    this.gone ??= "was closed"
    await this.client.close().catch(() => {})
  }

  private tail(): string {
    const line = this.stderrTail?.()
    return line ? ` (its last words on stderr: ${line})` : ""
  }

  private explain(error: unknown): string {
    const message = oneLine(errorMessage(error).replace(/^MCP error -?\d+: /, ""))
    const code = (error as NodeJS.ErrnoException)?.code
    if (code === "ENOENT") return `cannot run its command: ${message}`
    if (code === "EACCES") return `cannot run its command: permission denied`
    if (this.stderrTail && (this.gone || /Connection closed/i.test(message))) return `exited before it was ready${this.tail()}`
    return message + this.tail()
  }
}

/** One line for stderr and the prompt: an HTML error page reduced to its text, long text cut. */
function oneLine(text: string): string {
  const plain = /<!DOCTYPE|<html/i.test(text) ? text.replace(/<(style|script)[^>]*>[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]+>/g, " ") : text
  const line = visible(plain.replace(/\s+/g, " ").trim())
  return line.length > 300 ? `${line.slice(0, 299)}…` : line
}
