/**
 * The agent's events (SPEC section 3) as ACP `session/update` notifications: the model's answer
 * text as agent_message_chunk, its thinking as agent_thought_chunk, each script as a tool call
 * (announced once written, with its first line as title and the script as rawInput) whose output
 * shows as it is printed and then completes or fails it, each sub-agent as a tool call its summary completes, and the
 * context and cost as usage_update. The same mapping replays a saved session (session/load).
 * Types only from the SDK: this module loads nothing.
 */
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk"
import type { AgentEvent } from "../agent/events.ts"

/** Sandbox functions that change the todo list: after such a script the plan is sent again. */
const TODO_CALLS = /\b(addTodo|updateTodo|clearTodos)\s*\(/

const TITLE_MAX = 80

/** A tool call's title: the script's first line that says something, a leading `//` dropped. */
export function scriptTitle(script: string): string {
  const line = script.split("\n").map((text) => text.trim().replace(/^\/\/+\s*/, "").trim()).find((text) => text !== "") ?? "(empty script)"
  return line.length > TITLE_MAX ? `${line.slice(0, TITLE_MAX - 1)}…` : line
}

function text(value: string): ToolCallContent {
  return { type: "content", content: { type: "text", text: value } }
}

export class UpdateMapper {
  private counter = 0
  /** The open Reasoning block: answer text or thinking. */
  private block: "message" | "thought" | undefined
  /** The script being written, until its ScriptEnd. */
  private script: string | undefined
  /** Scripts announced and waiting for their output, oldest first (every ScriptEnd gets one ScriptOutput). */
  private pending: { id: string; script: string; printed: string }[] = []
  private subagents = new Map<string, string>()
  /** The answer text streamed for the current prompt, without whitespace: the summary is not repeated. */
  private answered = ""
  /** Cost of the session's earlier prompts: a run's Usage is cumulative for that run only. */
  private costBefore: number | null = 0
  private costNow: number | null = 0
  private todos = false

  /** Replaying a saved session: each prompt is shown again as the user's message. */
  replay = false

  /** Whether the last ScriptOutput answered a script that changed the todo list. */
  changedTodos(): boolean {
    return this.todos
  }

  map(event: AgentEvent): SessionUpdate[] {
    this.todos = false
    switch (event._tag) {
      case "AgentStart":
        this.answered = ""
        this.costBefore = this.costNow
        return this.replay ? [{ sessionUpdate: "user_message_chunk", content: { type: "text", text: event.prompt } }] : []
      case "ReasoningStart":
        this.block = event.thinking ? "thought" : "message"
        return []
      case "ReasoningDelta":
        if (this.block !== "thought") this.answered += event.delta.replace(/\s+/g, "")
        return [{ sessionUpdate: this.block === "thought" ? "agent_thought_chunk" : "agent_message_chunk", content: { type: "text", text: event.delta } }]
      case "ReasoningEnd":
        this.block = undefined
        return []
      case "ScriptStart":
        this.script = ""
        return []
      case "ScriptDelta":
        this.script = (this.script ?? "") + event.delta
        return []
      case "ScriptEnd": {
        const script = this.script ?? ""
        this.script = undefined
        const id = `script-${++this.counter}`
        this.pending.push({ id, script, printed: "" })
        return [{ sessionUpdate: "tool_call", toolCallId: id, title: scriptTitle(script), kind: "execute", status: "in_progress", rawInput: { script } }]
      }
      case "ScriptOutputDelta": {
        // Scripts run one after the other: the running one is the oldest waiting. A tool call's
        // content is replaced by each update, so each carries all printed so far (at most 64 KiB).
        const call = this.pending[0]
        if (!call) return []
        call.printed += event.text
        return [{ sessionUpdate: "tool_call_update", toolCallId: call.id, content: [text(call.printed)] }]
      }
      case "ScriptOutput": {
        const call = this.pending.shift()
        if (!call) return []
        this.todos = !event.failed && TODO_CALLS.test(call.script)
        return [{ sessionUpdate: "tool_call_update", toolCallId: call.id, status: event.failed ? "failed" : "completed", content: [text(event.output)] }]
      }
      case "SubagentStart": {
        const id = `delegate-${++this.counter}`
        this.subagents.set(event.id, id)
        return [
          {
            sessionUpdate: "tool_call",
            toolCallId: id,
            title: `delegate: ${scriptTitle(event.prompt)}`,
            kind: "other",
            status: "in_progress",
            rawInput: { prompt: event.prompt, ...(event.host === undefined ? {} : { host: event.host }) },
          },
        ]
      }
      case "SubagentComplete": {
        const id = this.subagents.get(event.id)
        if (id === undefined) return []
        this.subagents.delete(event.id)
        return [{ sessionUpdate: "tool_call_update", toolCallId: id, status: "completed", content: [text(event.summary)] }]
      }
      case "Usage": {
        this.costNow = this.costBefore === null || event.costUsd === null ? null : this.costBefore + event.costUsd
        // ACP's usage needs the window's size: a model of unknown window reports none.
        if (event.contextWindow === null) return []
        return [
          {
            sessionUpdate: "usage_update",
            used: event.contextTokens,
            size: event.contextWindow,
            ...(this.costNow === null ? {} : { cost: { amount: Math.round(this.costNow * 1e6) / 1e6, currency: "USD" } }),
          },
        ]
      }
      case "AgentFinished": {
        this.costNow = this.costBefore === null || event.usage.costUsd === null ? null : this.costBefore + event.usage.costUsd
        const updates = this.closePending()
        // A summary given through taskComplete was not streamed as text: it is the answer. (The
        // final text blocks, joined, are the summary otherwise.)
        const summary = event.summary.replace(/\s+/g, "")
        if (summary && !this.answered.includes(summary)) updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.summary } })
        return updates
      }
      case "AgentError":
        return this.closePending()
      default:
        return []
    }
  }

  /** Tool calls a run left open when it ended (none normally) fail, so the editor stops waiting. */
  private closePending(): SessionUpdate[] {
    const open = [...this.pending.map((call) => call.id), ...this.subagents.values()]
    this.pending = []
    this.subagents.clear()
    this.block = undefined
    this.script = undefined
    return open.map((id) => ({ sessionUpdate: "tool_call_update", toolCallId: id, status: "failed" }))
  }
}
