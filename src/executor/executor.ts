import { ToolError } from "../errors.ts"

/**
 * The one seam everything crosses: the agent talks to an Executor, wherever it runs.
 * Implementations: LocalExecutor (sandbox + tools in this process), RemoteExecutor (a child
 * process speaking the protocol), and the protocol server wraps any Executor.
 */
export interface Capabilities {
  /** TypeScript declarations of the sandbox tools, generated from their schemas. */
  toolsDts: string
  /** AGENTS.md of the executor's directory, or null. */
  agentsMd: string | null
  supportsSearch: boolean
  protocolVersion: number
  version: string
  /** Absolute path of the executor's working directory. */
  directory: string
}

export interface ExecuteOptions {
  script: string
  /** Called when the script calls taskComplete(summary). */
  onTaskComplete(summary: string): void
  /** Answered by the agent, wherever the script runs: runs a sub-agent, resolves to its summary. */
  onSubagent(prompt: string): Promise<string>
  /** Cancel: kill the script and every process it started. */
  signal?: AbortSignal
  /** The script's time limit; default DEFAULT_SCRIPT_TIMEOUT_MS. */
  timeoutMs?: number
}

export interface Executor {
  capabilities(): Promise<Capabilities>
  /**
   * Console text as it is printed. When the script threw, did not parse or timed out, the
   * iteration ends by throwing a ScriptError (one-line reason) after all its output was yielded.
   * Cancellation through `signal` ends it with a CancelledError.
   */
  execute(options: ExecuteOptions): AsyncIterable<string>
  /** Call one tool directly, outside any script. Rejects with ToolError. */
  executeUnsafe(tool: string, params: unknown): Promise<unknown>
  close(): Promise<void>
}

export const DEFAULT_SCRIPT_TIMEOUT_MS = 10 * 60 * 1000

/** ExecuteOptions.onSubagent where there is no model to run a sub-agent (exec, tool). */
export async function noSubagents(): Promise<string> {
  throw new ToolError("sub-agents need a model: use `clanka run`")
}
