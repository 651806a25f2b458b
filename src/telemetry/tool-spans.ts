/**
 * The executor's side of tracing: when an execute request carries a trace context, each tool call
 * of the script is timed here and the spans go back to the agent with the result. No OpenTelemetry
 * code runs on an executor (nothing to install, nothing that needs the network): a span is a few
 * numbers and strings, exported by the agent.
 */
import { hostname } from "node:os"
import type { ExecutorSpan, TraceContext } from "../contract.ts"
import { randomHex } from "../util/random-hex.ts"

/** More tool calls than this in one script are not recorded (a loop of a million readFile calls). */
export const MAX_SPANS_PER_SCRIPT = 1000

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-[\da-f]{2}$/

/** A tool call being timed: `end` once it settles; `spanId` names it to the sub-agents it starts. */
export interface ToolSpan {
  spanId: string
  end(error?: string): void
}

export class ToolSpanRecorder {
  private readonly done: ExecutorSpan[] = []
  private readonly open = new Map<string, { name: string; tool: string; startMs: number }>()
  private readonly host = hostname()

  /** A recorder for an execute's trace context, or undefined without one (or with a malformed one). */
  static for(trace: TraceContext | undefined): ToolSpanRecorder | undefined {
    const match = trace && TRACEPARENT.exec(trace.traceparent)
    // All-zero ids are invalid in W3C trace context: such a parent is no parent.
    if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return undefined
    return new ToolSpanRecorder()
  }

  start(tool: string): ToolSpan | undefined {
    if (this.done.length + this.open.size >= MAX_SPANS_PER_SCRIPT) return undefined
    const spanId = newSpanId()
    this.open.set(spanId, { name: `execute_tool ${tool}`, tool, startMs: nowMs() })
    return { spanId, end: (error) => this.end(spanId, error) }
  }

  private end(spanId: string, error?: string): void {
    const started = this.open.get(spanId)
    if (!started) return
    this.open.delete(spanId)
    this.done.push({
      spanId,
      name: started.name,
      startMs: started.startMs,
      endMs: nowMs(),
      ...(error === undefined ? {} : { error: error.split("\n")[0]!.slice(0, 500) }),
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": started.tool,
        "gen_ai.tool.type": "function",
        "host.name": this.host,
      },
    })
  }

  /**
   * The spans, once the script has ended: calls still running (not awaited by the script) end now,
   * as failed. Each span is handed out once.
   */
  take(): ExecutorSpan[] {
    for (const spanId of [...this.open.keys()]) this.end(spanId, "still running when the script ended")
    return this.done.splice(0)
  }
}

function nowMs(): number {
  return performance.timeOrigin + performance.now()
}

function newSpanId(): string {
  const id = randomHex(8)
  // An all-zero id is invalid; the chance is 2^-64, but the fix is one digit.
  return id === "0000000000000000" ? "0000000000000001" : id
}
