import type { SandboxBackend, SandboxMode } from "../contract.ts"
/**
 * The events of an agent run (SPEC section 3). Scripts piping `--output ndjson` into jq rely on
 * these names and fields: add fields if needed, never remove or rename one.
 */

export interface RunUsage {
  /** Tokens the model saw in its latest request (input + cache) plus what it wrote. */
  contextTokens: number
  /** The model's context window, or null when unknown. */
  contextWindow: number | null
  /** Cumulative for the run. */
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  /** Cumulative cost in US dollars, or null when the model is not in the price table. */
  costUsd: number | null
}

export interface RetryInfo {
  message: string
  retryable: boolean
  status?: number
}

/** Events of one agent's own work: what a sub-agent's SubagentPart can carry. */
export type ContentPart =
  /** `thinking`: the model's reasoning (thinking) rather than its answer text. */
  | { _tag: "ReasoningStart"; thinking?: true }
  | { _tag: "ReasoningDelta"; delta: string }
  | { _tag: "ReasoningEnd" }
  | { _tag: "ScriptStart" }
  | { _tag: "ScriptDelta"; delta: string }
  | { _tag: "ScriptEnd" }
  /**
   * What a running script printed just now (`id`: the execute call's id). The deltas of one script
   * stop at the same budget as the model's copy (64 KiB); ScriptOutput stays the complete text the
   * model gets.
   */
  | { _tag: "ScriptOutputDelta"; id: string; text: string }
  /** `failed`: the script threw, timed out, was stopped or did not run. */
  | { _tag: "ScriptOutput"; output: string; failed?: true }
  | ({ _tag: "Usage"; durationMs: number } & RunUsage)
  | { _tag: "ErrorRetry"; error: RetryInfo }
  | { _tag: "StructuredOutput"; value: unknown }
  /**
   * A configured hook ran (agent/hooks.ts): `exitCode` null when it did not exit by itself (timed
   * out, could not start); `blocked` when a preExecute hook stopped the script; `warning` the one
   * line said about a failed hook.
   */
  | { _tag: "Hook"; name: string; command: string; exitCode: number | null; durationMs: number; blocked: boolean; warning?: string }
  /** The history was summarised: estimated input tokens before and after, and how long it took. */
  | { _tag: "Compaction"; beforeTokens: number; afterTokens: number; durationMs: number }

export type SubagentEvent =
  /** `host`: the sub-agent's scripts run on that host of the run (delegate(task, { host })). */
  | { _tag: "SubagentStart"; id: string; prompt: string; provider: string; model: string; host?: string }
  | { _tag: "SubagentPart"; id: string; part: ContentPart }
  | { _tag: "SubagentComplete"; id: string; summary: string }

export type AgentEvent =
  | {
      _tag: "AgentStart"
      id: string
      prompt: string
      /** Absolute paths of the images shown with the prompt (--image); absent without any. */
      images?: string[]
      provider: string
      model: string
      sessionId: string
      /**
       * The saved session this run goes on from (--resume, --continue, --fork), or null. The agent
       * always sets it; optional only so that hand-made events (tests, library users) stay valid.
       */
      resumedFrom?: string | null
      directory: string
      tools: string[]
      /** The sandbox the executor runs scripts in (`off`: none), and the OS sandbox that enforces it. */
      sandbox: { mode: SandboxMode; network: boolean; backend?: SandboxBackend }
    }
  | ContentPart
  | SubagentEvent
  /** `stop`: the last response was cut at the model's output limit, or the model refused. */
  | { _tag: "AgentFinished"; summary: string; durationMs: number; turns: number; usage: RunUsage; stop?: "length" | "refusal" }
  | { _tag: "AgentError"; message: string; exitCode: number }

export type AgentEventTag = AgentEvent["_tag"]

/** Block boundaries: another agent's events must not land between a start and its end. */
export function opensBlock(event: { _tag: string }): boolean {
  return event._tag === "ReasoningStart" || event._tag === "ScriptStart"
}

export function closesBlock(event: { _tag: string }): boolean {
  return event._tag === "ReasoningEnd" || event._tag === "ScriptEnd"
}
