import type * as v from "valibot"
import type { ExecuteOptions, SandboxPolicy, SubagentRequest } from "../contract.ts"
import type { TodoStore } from "./todos.ts"
import type { ProcessRegistry } from "./processes.ts"

/** What a tool sees of the execute that called it. */
export interface ToolContext {
  /** Absolute path of the executor's directory; tool paths are relative to it. */
  directory: string
  /** What the tools may write: the fs tools refuse targets outside it (SandboxPolicy). */
  policy: SandboxPolicy
  /** Aborted when the script is cancelled or times out. */
  signal: AbortSignal
  onTaskComplete(summary: string): void
  onSubagent(prompt: string, options?: SubagentRequest): Promise<string>
  /** Asks the agent's side for a service that needs its keys or network (webSearch). */
  agentCall(service: string, params: unknown): Promise<unknown>
  /** Per-executor todo list. */
  todos: TodoStore
  /** Every child process a tool starts is registered here so cancellation can kill it. */
  processes: ProcessRegistry
  /** Where the script's images go (the agent's model), or why they cannot; absent: nowhere (exec, tool). */
  images?: ExecuteOptions["images"]
}

export interface Tool<P = any, R = any> {
  name: string
  /** One line, shown to the model. */
  description: string
  /** Validates calls and renders the TypeScript declaration. */
  params: v.GenericSchema<unknown, P>
  /** Name of the single parameter in the declaration ("patch", "command", …). */
  paramName?: string
  /**
   * Names of the arguments of a tool that takes several (its params are a tuple): the script's
   * call passes them all, the declaration names each, e.g. `search(query, options?)`.
   */
  argNames?: readonly string[]
  /** Shape of the result, rendered as the declaration's return type. */
  result: v.GenericSchema<unknown, R>
  /**
   * How many of `argNames` the model's declarations show; the rest are declared by the agent
   * when they apply (delegate's options: only in a run over several hosts).
   */
  declaredArgs?: number
  /** Left out of the tools' own declarations: declared elsewhere (MCP tools), or by the agent when it applies. */
  hidden?: boolean
  /**
   * It cannot change files behind the search index's back: it only reads, or writes through
   * filesChanged. Any other tool (bash, gh, a custom or MCP tool) makes the next search scan.
   */
  keepsIndex?: boolean
  run(params: P, ctx: ToolContext): Promise<R>
}

/** Identity helper that keeps the parameter and result types tied to the schemas. */
export function defineTool<PS extends v.GenericSchema, RS extends v.GenericSchema>(tool: {
  name: string
  description: string
  params: PS
  paramName?: string
  argNames?: readonly string[]
  result: RS
  declaredArgs?: number
  hidden?: boolean
  keepsIndex?: boolean
  run(params: v.InferOutput<PS>, ctx: ToolContext): Promise<v.InferOutput<RS>>
}): Tool<v.InferOutput<PS>, v.InferOutput<RS>> {
  return tool as unknown as Tool<v.InferOutput<PS>, v.InferOutput<RS>>
}

/** An executor's tools as it uses them: the sandbox's globals, the model's declarations, the calls. */
export interface ToolSet {
  readonly names: readonly string[]
  /** Tools that take several arguments (Tool.argNames). */
  readonly spread: readonly string[]
  /** The declarations the model sees. */
  readonly dts: string
  has(name: string): boolean
  /** Validates the parameters and runs the tool. Rejects with ToolError carrying the tool's name. */
  call(name: string, params: unknown, ctx: ToolContext): Promise<unknown>
}
