/**
 * clanka as a library: the agent the `clanka run` command is built on.
 *
 *   import { createAgent, LocalExecutor, resolveModel } from "clanka"
 *   const agent = createAgent({ executor: new LocalExecutor({ directory: "." }), model: resolveModel("anthropic/claude-sonnet-4-5") })
 *   for await (const event of agent.send("fix the failing test")) console.log(event)
 */
export { createAgent, DEFAULT_TURN_TIMEOUT_MS, type Agent, type AgentOptions, type SendOptions } from "./agent/agent.ts"
export type { AgentEvent, AgentEventTag, ContentPart, RetryInfo, RunUsage, SubagentEvent } from "./agent/events.ts"
export { buildSystemPrompt } from "./agent/system-prompt.ts"
export { validateJson } from "./schema/validate.ts"
export { createFormatter } from "./output/format.ts"
export { outputFormats, type OutputFormat } from "./output/choose.ts"
export { resolveModel } from "./providers/resolve.ts"
export type { Message, Model, Part, TokenUsage } from "./providers/model.ts"
export { ModelError } from "./providers/model.ts"
export { LocalExecutor } from "./executor/local.ts"
export { connectExecutor } from "./executor/connect.ts"
export {
  CapabilitiesSchema,
  DEFAULT_SCRIPT_TIMEOUT_MS,
  EXECUTE_TOOL,
  scriptOf,
  type Capabilities,
  type ExecuteOptions,
  type Executor,
} from "./contract.ts"
export { builtinTools } from "./tools/registry.ts"
export { ToolRegistry } from "./tools/tool-registry.ts"
// Sessions: pass `session: SessionRecorder.create({…})` to createAgent to save a run; resume with
// `history: historyOf(parseTranscript(text))` and `SessionRecorder.reopen(findSession(id))`.
export { SessionRecorder, type SessionSink } from "./session/recorder.ts"
export { findSession, listSessions, sessionsDirectory, type SessionStatus, type SessionSummary } from "./session/store.ts"
export { DamagedHistoryError, historyOf } from "./session/history.ts"
export { parseTranscript, type SessionHeader, type TranscriptLine } from "./session/transcript.ts"
export { defineTool, type Tool, type ToolContext } from "./tools/tool.ts"
export * from "./errors.ts"
