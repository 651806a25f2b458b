/**
 * The seam everything crosses: the agent talks to an Executor, wherever it runs. This module holds
 * the contract both sides keep — the Executor interface, its capabilities (inferred from the wire
 * schema), the `execute` tool the model calls, and the errors that cross the seam. It imports only
 * valibot and the bottom-level errors and schema renderers.
 *
 * Implementations: LocalExecutor (sandbox + tools in this process), RemoteExecutor (a child process
 * speaking the protocol); the protocol server serves any Executor.
 */
import * as v from "valibot"
import { ToolError } from "./errors.ts"
import { toJsonSchema } from "./schema/to-json-schema.ts"
import { SandboxBackends, SandboxModes } from "./sandbox-policy.ts"

export {
  CancelledError,
  ExecutorLostError,
  InvalidParamsError,
  ScriptError,
  ToolError,
  UnknownToolError,
} from "./errors.ts"

// ---------------------------------------------------------------------------------------------
// The execute tool: the model's one tool. Its input is what the wire's execute request carries.

export const EXECUTE_TOOL_NAME = "execute"

/** The field of the execute input that holds the program; the streaming decoder looks for it. */
export const SCRIPT_FIELD = "script"

export const ExecuteInputSchema = v.object({
  [SCRIPT_FIELD]: v.pipe(v.string(), v.description("JavaScript; top-level await works.")),
})

const EXECUTE_DESCRIPTION =
  "Run a JavaScript program in the sandbox. The functions declared in the system prompt are async globals; what the program prints with console.log is returned to you."

let executeInputJsonSchema: ReturnType<typeof toJsonSchema> | undefined

/** The declaration the provider APIs take: name, description, JSON Schema of the input. */
export const EXECUTE_TOOL = {
  name: EXECUTE_TOOL_NAME,
  description: EXECUTE_DESCRIPTION,
  /** Rendered at first use: an executor, which loads this module before its first answer, never needs it. */
  get inputSchema() {
    return (executeInputJsonSchema ??= toJsonSchema(ExecuteInputSchema))
  },
}

/**
 * The program of an execute call, or undefined when the input does not hold one. The input is the
 * parsed JSON, or its raw text when a provider could not parse it (cut off by a token limit).
 */
export function scriptOf(input: unknown): string | undefined {
  if (typeof input === "string") {
    try {
      input = JSON.parse(input)
    } catch {
      return undefined
    }
  }
  const parsed = v.safeParse(ExecuteInputSchema, input)
  return parsed.success ? parsed.output.script : undefined
}

// ---------------------------------------------------------------------------------------------
// The sandbox policy an executor enforces (sandbox-policy.ts).

export { SandboxBackends, SandboxModes, UNRESTRICTED, type SandboxBackend, type SandboxMode, type SandboxPolicy } from "./sandbox-policy.ts"

// ---------------------------------------------------------------------------------------------
// Capabilities and the execute request, as they cross the wire (SPEC section 4).

/** Facts about the executor's machine for the system prompt (environment.ts); each may be missing. */
export const EnvironmentSchema = v.looseObject({
  /** process.platform: linux, darwin, … */
  os: v.string(),
  /** The distribution or release, e.g. "Debian GNU/Linux 12 (bookworm)". */
  osName: v.optional(v.string()),
  arch: v.string(),
  /** The shell bash() runs, e.g. "bash 5.2.15". */
  shell: v.optional(v.string()),
  /** Today in the executor's time zone, YYYY-MM-DD. */
  date: v.string(),
  /** Present when the directory is in a git repository; `changedFiles` is missing when git status took too long. */
  git: v.optional(v.looseObject({ root: v.string(), branch: v.optional(v.string()), changedFiles: v.optional(v.number()) })),
})
export type Environment = v.InferOutput<typeof EnvironmentSchema>

/** One instructions file (AGENTS.md, or CLAUDE.md where a directory has no AGENTS.md). */
export const InstructionsFileSchema = v.looseObject({ path: v.string(), text: v.string() })
export type InstructionsFile = v.InferOutput<typeof InstructionsFileSchema>

/** A skill as the prompt lists it: `skill(name)` loads the rest. */
export const SkillSummarySchema = v.looseObject({ name: v.string(), description: v.string(), path: v.string() })
export type SkillSummary = v.InferOutput<typeof SkillSummarySchema>

export const CapabilitiesSchema = v.looseObject({
  /** TypeScript declarations of the sandbox tools, generated from their schemas. */
  toolsDts: v.string(),
  /** AGENTS.md (or CLAUDE.md) of the executor's directory, or null; `instructionsFiles` has the whole chain. */
  agentsMd: v.nullable(v.string()),
  /** The AGENTS.md chain from the repository root down to the directory, nearest last. */
  instructionsFiles: v.optional(v.array(InstructionsFileSchema)),
  /** The project's skills (.agents/skills, .claude/skills), by name; missing when the executor has no skill tool. */
  skills: v.optional(v.array(SkillSummarySchema)),
  /** Facts about the executor's machine and directory. */
  environment: v.optional(EnvironmentSchema),
  /** True exactly when the executor has a `search` tool. */
  supportsSearch: v.boolean(),
  protocolVersion: v.number(),
  version: v.string(),
  /** Absolute path of the executor's working directory. */
  directory: v.string(),
  /** The sandbox the executor's scripts run in; an executor that does not say runs none. */
  sandbox: v.optional(v.looseObject({ mode: v.picklist(SandboxModes), network: v.boolean(), backend: v.optional(v.picklist(SandboxBackends)) }), { mode: "off", network: true }),
  /** MCP servers that could not be started or listed (their tools are missing); empty without MCP. */
  mcpFailures: v.optional(v.array(v.looseObject({ server: v.string(), error: v.string() }))),
  /** Lines for the user about what the executor found and left out (an AGENTS.md outside the workspace). */
  warnings: v.optional(v.array(v.string())),
})
export type Capabilities = v.InferOutput<typeof CapabilitiesSchema>

/**
 * An MCP server started as a child process (stdio transport): beside a sandboxed executor, by the
 * process that starts its sandbox; by an unsandboxed executor itself.
 */
export const StdioMcpServerSchema = v.looseObject({
  command: v.pipe(v.string(), v.minLength(1, "the command is empty")),
  args: v.optional(v.array(v.string())),
  env: v.optional(v.record(v.string(), v.string())),
  /** Relative to the executor's directory (default: that directory). */
  cwd: v.optional(v.string()),
  /** How long the server may take to start and list its tools (default 10 s). */
  startupTimeoutSec: v.optional(v.pipe(v.number(), v.minValue(0.001), v.maxValue(600))),
})
export type StdioMcpServer = v.InferOutput<typeof StdioMcpServerSchema>

/** A tool of an MCP server that runs on the agent's side (HTTP): the executor calls it through the agent. */
export const AgentMcpToolSchema = v.looseObject({
  server: v.string(),
  name: v.string(),
  description: v.optional(v.string()),
  inputSchema: v.unknown(),
  outputSchema: v.optional(v.unknown()),
})
export type AgentMcpTool = v.InferOutput<typeof AgentMcpToolSchema>

/** Params of the `mcp` agent-side service: a script's call of an agent-side server's tool. */
export const McpCallParamsSchema = v.looseObject({ server: v.string(), tool: v.string(), arguments: v.optional(v.record(v.string(), v.unknown())) })

/**
 * Params of the wire's capabilities request: what the agent asks the executor to add to its tools.
 * Only the first request that names MCP servers starts them; later ones get the same tools.
 */
export const CapabilitiesRequestSchema = v.looseObject({
  mcpServers: v.optional(v.record(v.string(), StdioMcpServerSchema)),
  agentMcpTools: v.optional(v.array(AgentMcpToolSchema)),
  /** Agent-side servers that failed, so the prompt names them too. */
  agentMcpFailures: v.optional(v.array(v.looseObject({ server: v.string(), error: v.string() }))),
})
export type CapabilitiesRequest = v.InferOutput<typeof CapabilitiesRequestSchema>

/** An image a script shows the model (readImage, an MCP tool's image), as it crosses the wire. */
export const ScriptImageSchema = v.looseObject({
  mediaType: v.picklist(["image/png", "image/jpeg", "image/gif", "image/webp"]),
  /** The bytes, base64. */
  data: v.string(),
  /** SHA-256 of the bytes, hex. */
  sha256: v.string(),
  width: v.number(),
  height: v.number(),
  /** Absolute path on the executor's host (readImage). */
  path: v.optional(v.string()),
  /** The MCP tool that returned it (`mcp.server.tool`). */
  tool: v.optional(v.string()),
})
export type ScriptImage = v.InferOutput<typeof ScriptImageSchema>

/**
 * What the agent does with a script's images: takes them up to a size (Image outputs), or refuses
 * them with a reason that readImage fails with (a model without image input).
 */
export const ImagePolicySchema = v.union([
  v.looseObject({ maxBytes: v.pipe(v.number(), v.integer(), v.minValue(1)), maxSide: v.optional(v.number()) }),
  v.looseObject({ refused: v.string() }),
])
export type ImagePolicy = v.InferOutput<typeof ImagePolicySchema>

/**
 * The W3C trace context of the agent's span for a script (OpenTelemetry): with it the executor
 * times the script's tool calls and sends them back as spans; without it, it records nothing.
 */
export const TraceContextSchema = v.looseObject({
  traceparent: v.string(),
  tracestate: v.optional(v.string()),
})
export type TraceContext = v.InferOutput<typeof TraceContextSchema>

/** Attribute values a span made on an executor may carry. */
const SpanAttributeValueSchema = v.union([v.string(), v.number(), v.boolean()])

/**
 * A span made on an executor (one tool call), sent back to the agent, which exports it: its trace
 * is the execute's; its parent the execute's span unless `parentSpanId` names another.
 */
export const ExecutorSpanSchema = v.looseObject({
  /** 16 lowercase hex digits, made by the executor. */
  spanId: v.string(),
  parentSpanId: v.optional(v.string()),
  name: v.string(),
  /** Milliseconds since the epoch, on the executor's clock. */
  startMs: v.number(),
  endMs: v.number(),
  /** Set when the operation failed: one line. */
  error: v.optional(v.string()),
  attributes: v.optional(v.record(v.string(), SpanAttributeValueSchema)),
})
export type ExecutorSpan = v.InferOutput<typeof ExecutorSpanSchema>

/** Params of the wire's execute request: the tool's input plus the script's time limit. */
export const ExecuteParamsSchema = v.looseObject({
  ...ExecuteInputSchema.entries,
  timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /** Absent: the agent takes no images (an older agent, `clanka exec`): readImage only answers the handle. */
  images: v.optional(ImagePolicySchema),
  /** OpenTelemetry: the script's span; the executor then sends its tool calls back as spans. */
  trace: v.optional(TraceContextSchema),
})
export type ExecuteParams = v.InferOutput<typeof ExecuteParamsSchema>

// ---------------------------------------------------------------------------------------------
// The Executor.

/** The second argument of `delegate(task, { host })`. */
export const SubagentOptionsSchema = v.object({
  /** Name of the host (one of `hosts()`) whose executor runs the sub-agent's scripts. */
  host: v.optional(v.pipe(v.string(), v.minLength(1))),
})
export type SubagentOptions = v.InferOutput<typeof SubagentOptionsSchema>

/** What onSubagent is told: delegate()'s options, and the span of that delegate() call when traced. */
export interface SubagentRequest extends SubagentOptions {
  spanId?: string
}

/** A service that needs the agent's keys or network (webSearch), answered on the agent's side. */
export type AgentCall = (service: string, params: unknown) => Promise<unknown>

export interface ExecuteOptions extends Pick<ExecuteParams, "script" | "timeoutMs" | "trace"> {
  /**
   * Images the script shows the model: `receive` gets each, in order, to go after the script's
   * output. `refused`: readImage fails with this reason. Absent: images go nowhere.
   */
  images?: ImageReceiver | { refused: string }
  /** Called when the script calls taskComplete(summary). */
  onTaskComplete(summary: string): void
  /**
   * Answered by the agent, wherever the script runs: runs a sub-agent, resolves to its summary.
   * `host`: the sub-agent's scripts run on that host of the run (`delegate(task, { host })`).
   */
  onSubagent(prompt: string, options?: SubagentRequest): Promise<string>
  /**
   * Answers the script's calls of agent-side services. Default: the executor's agent side runs them
   * itself (a LocalExecutor in this process, a RemoteExecutor's client process).
   */
  onAgentCall?: AgentCall
  /**
   * Called as the script calls a tool, before the tool starts: what the script printed so far
   * should be on its way by then (a tool may stop this process, or the agent may be told to stop).
   */
  beforeTool?(): void
  /** Cancel: kill the script and every process it started. */
  signal?: AbortSignal
  /**
   * When given, the report of a script that failed (its error and code frame, or the marker of a
   * time or memory stop) comes here, once all its output was yielded, instead of in the output:
   * `clanka exec` keeps stdout to what the script printed. The model, without it, sees it all.
   */
  onReport?(text: string): void
  /**
   * With `trace`: receives the spans of the script's tool calls, before the iteration ends (also
   * when the script failed or was cancelled).
   */
  onSpans?(spans: ExecutorSpan[]): void
}

export interface Executor {
  /** `request`: MCP servers and agent-side MCP tools to add, the first time they are given. */
  capabilities(request?: CapabilitiesRequest): Promise<Capabilities>
  /**
   * Console text as it is printed. When the script threw, did not parse or timed out, the
   * iteration ends by throwing a ScriptError (one-line reason) after all its output was yielded.
   * Cancellation through `signal` ends it with a CancelledError; a lost executor with an
   * ExecutorLostError.
   */
  execute(options: ExecuteOptions): AsyncIterable<string>
  /**
   * Call one tool directly, outside any script. Rejects with InvalidParamsError (bad parameters),
   * UnknownToolError, or ToolError (the tool failed).
   */
  executeUnsafe(tool: string, params: unknown, options?: { onAgentCall?: AgentCall }): Promise<unknown>
  close(): Promise<void>
  /**
   * An executor that is still starting and knows what it will announce for the system prompt:
   * the agent's first model request need not wait for it (undefined: it cannot tell).
   */
  expectedPrompt?(): Promise<PromptFacts | undefined>
}

/** What the system prompt is built from of an executor's capabilities. */
export type PromptFacts = Pick<Capabilities, "toolsDts" | "agentsMd" | "instructionsFiles" | "skills" | "environment" | "directory" | "sandbox">

export interface ImageReceiver {
  maxBytes: number
  maxSide?: number
  receive(image: ScriptImage): void
}

export const DEFAULT_SCRIPT_TIMEOUT_MS = 10 * 60 * 1000

/** ExecuteOptions.onSubagent where there is no model to run a sub-agent (exec, tool). */
export async function noSubagents(): Promise<string> {
  throw new ToolError("sub-agents need a model: use `clanka run`")
}
