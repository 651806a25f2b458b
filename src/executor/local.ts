import { resolve } from "node:path"
import { type RunHandle, type RunResult, Sandbox } from "../sandbox/sandbox.ts"
import { gatherContext } from "./context.ts"
import { defaultMaxScripts, ScriptSlots, SlotLease } from "./script-slots.ts"
import { runAgentService } from "../tools/agent-services.ts"
import { ProcessGuard } from "../tools/process-guard.ts"
import { ProcessRegistry, untilGone } from "../tools/processes.ts"
import { BuiltinTools } from "../tools/builtin-tools.ts"
import { ToolRegistry } from "../tools/tool-registry.ts"
import { TodoStore } from "../tools/todos.ts"
import type { Tool, ToolContext, ToolSet } from "../tools/tool.ts"
import { AsyncQueue } from "../util/async-queue.ts"
import { errorMessage } from "../util/error-message.ts"
import { ToolSpanRecorder } from "../telemetry/tool-spans.ts"
import type { ExecutorMcp } from "../mcp/executor-side.ts"
import { PROTOCOL_VERSION, VERSION } from "../version.ts"
import { type AgentCall, CancelledError, type Capabilities, type CapabilitiesRequest, DEFAULT_SCRIPT_TIMEOUT_MS, type ExecuteOptions, type Executor, noSubagents, type SandboxPolicy, ScriptError, UNRESTRICTED } from "../contract.ts"

export interface LocalExecutorOptions {
  directory: string
  /** The sandbox's tools (default: the built-in set, `builtinTools`, whose modules load at their first call). */
  tools?: readonly Tool[]
  /** With the built-in set: whether it has `search` (default true; --no-search). */
  search?: boolean
  /** What the tools may write (default: UNRESTRICTED). The OS sandbox is the caller's (bwrap). */
  policy?: SandboxPolicy
  /** MCP servers to start and agent-side MCP tools to add at the first capabilities request. */
  mcp?: CapabilitiesRequest
  /** Scripts that run at once; the rest wait in order (default: `defaultMaxScripts()`). */
  maxScripts?: number
}

/** Runs scripts in this process's sandbox workers, with the tools acting on `directory`. */
export class LocalExecutor implements Executor {
  readonly directory: string
  tools: ToolSet
  readonly policy: SandboxPolicy
  private readonly sandbox: Sandbox
  private readonly slots: ScriptSlots
  private readonly todos = new TodoStore()
  /**
   * Processes of every execute and tool call that may still have some running — also those a
   * finished script left on purpose (a dev server) — so close() can kill them all.
   */
  private readonly started = new Set<ProcessRegistry>()
  /** Reaches what escaped the process groups (setsid, double fork), also if this process is killed. */
  private readonly guard = new ProcessGuard()
  /** The MCP tools, once a capabilities request named MCP servers; `mcpUpdate` settles when they are in. */
  private mcp: ExecutorMcp | undefined
  /** The built-in tools, when the executor was not handed its own: MCP tools are added to them. */
  private readonly builtin: BuiltinTools | undefined
  private mcpUpdate: Promise<void> = Promise.resolve()

  constructor(private readonly options: LocalExecutorOptions) {
    this.directory = resolve(options.directory)
    this.builtin = options.tools ? undefined : new BuiltinTools(options.search !== false)
    this.tools = this.builtin ?? new ToolRegistry(options.tools!)
    this.policy = options.policy ?? UNRESTRICTED
    this.sandbox = new Sandbox(this.tools.names, this.tools.spread)
    this.slots = new ScriptSlots(options.maxScripts ?? defaultMaxScripts())
  }

  async capabilities(request: CapabilitiesRequest | undefined = this.options.mcp): Promise<Capabilities> {
    if (request && hasMcp(request)) await this.addMcp(request)
    else await this.mcpUpdate
    const mcp = this.mcp
    // An agent asks for capabilities first: its first script then finds a worker ready. Tool
    // calls alone (`clanka tool`) never start one.
    this.sandbox.warm()
    const gathered = gatherContext(this.directory)
    // Rendered (once) while the context's files are read: it is on the way to the first answer.
    const toolsDts = this.tools.dts
    const context = await gathered
    // The built-in tools' modules, needed by the first call, load once this answer is out, while
    // the worker starts.
    const builtin = this.builtin
    if (builtin) setTimeout(() => void builtin.load().catch(() => {}), 0)
    return {
      toolsDts,
      agentsMd: context.agentsMd,
      instructionsFiles: context.instructionsFiles,
      // Without the skill tool (a custom tool set) no skill could be loaded: none are offered.
      ...(this.tools.has("skill") ? { skills: context.skills } : {}),
      environment: context.environment,
      supportsSearch: this.tools.has("search"),
      protocolVersion: PROTOCOL_VERSION,
      version: VERSION,
      directory: this.directory,
      sandbox: { mode: this.policy.mode, network: this.policy.network, ...(this.policy.backend ? { backend: this.policy.backend } : {}) },
      ...(mcp ? { mcpFailures: mcp.failures } : {}),
      ...(context.warnings.length ? { warnings: context.warnings } : {}),
    }
  }

  /** Starts MCP servers / adds agent-side MCP tools (the SDK is loaded only now), one request at a time. */
  private addMcp(request: CapabilitiesRequest): Promise<void> {
    const next = this.mcpUpdate.then(async () => {
      const { ExecutorMcp } = await import("../mcp/executor-side.ts")
      // Tagged like the tools' processes: close() (or the guardian, if this process is killed)
      // ends the servers and whatever they started.
      if (Object.keys(request.mcpServers ?? {}).length > 0) this.guard.arm()
      this.mcp ??= new ExecutorMcp(this.directory, this.guard.env)
      if (!(await this.mcp.add(request))) return
      const base = this.builtin ? await this.builtin.tools() : this.options.tools!
      this.tools = new ToolRegistry([...base, ...this.mcp.tools], this.mcp.declarations)
      this.sandbox.setToolNames(this.tools.names, this.tools.spread)
    })
    this.mcpUpdate = next.catch(() => {})
    return next
  }

  execute(options: ExecuteOptions): AsyncIterable<string> {
    const output = new AsyncQueue<string>()
    const abort = new AbortController()
    const processes = new ProcessRegistry(this.guard)
    const lease = new SlotLease(this.slots)
    const ctx = this.context(abort.signal, processes, { ...options, onSubagent: this.lending(lease, options.onSubagent, abort.signal) })
    this.started.add(processes)
    const onCancel = () => abort.abort(new CancelledError())
    options.signal?.addEventListener("abort", onCancel)
    let report = ""
    const spans = options.onSpans && ToolSpanRecorder.for(options.trace)
    let run: RunHandle | undefined
    let finished = false
    const end = (result: RunResult) => {
      finished = true
      lease.close()
      options.signal?.removeEventListener("abort", onCancel)
      // Tool calls the script did not wait for can no longer deliver their results: stop them.
      abort.abort(new CancelledError(result.ok ? "the script ended" : result.error))
      // A stopped script's processes go with it; a script that ended normally may leave
      // background servers it started on purpose, until the executor closes.
      if (!result.ok && result.reason !== "error") processes.killAll()
      if (processes.empty) this.started.delete(processes)
      if (result.ok) return output.end()
      output.fail(result.reason === "cancelled" ? new CancelledError() : new ScriptError(result.error))
    }
    // Waits for a slot (--max-scripts); cancelled meanwhile, it ends without having run. The time
    // limit counts from the start. Then for the built-in tools' modules (loading since the
    // capabilities answer): a call the script does not await (taskComplete just before its end)
    // would otherwise wait for them until after the script's result.
    const builtin = this.builtin
    lease.take(abort.signal).then(() => builtin?.load().then(() => {}, () => {})).then(
      () => {
        if (abort.signal.aborted) return end({ ok: false, reason: "cancelled", error: "cancelled" })
        run = this.sandbox.run({
          script: options.script,
          timeoutMs: options.timeoutMs ?? DEFAULT_SCRIPT_TIMEOUT_MS,
          signal: abort.signal,
          onOutput: (text) => output.push(text),
          // Kept for the consumer until the output before it was taken (see below).
          ...(options.onReport ? { onReport: (text: string) => void (report += text) } : {}),
          onCall: (tool, params) => {
            options.beforeTool?.()
            const span = spans?.start(tool)
            if (!span) return this.tools.call(tool, params, ctx)
            // A sub-agent this call starts is nested under the call's span.
            const traced: ToolContext = { ...ctx, onSubagent: (prompt, request) => ctx.onSubagent(prompt, { ...request, spanId: span.spanId }) }
            const call = this.tools.call(tool, params, traced)
            call.then(
              () => span.end(),
              (error) => span.end(errorMessage(error)),
            )
            return call
          },
        })
        void run.result.then(end)
      },
      () => end({ ok: false, reason: "cancelled", error: "cancelled" }),
    )
    // The spans go once the output has: after all of it, before the iteration ends.
    const sendSpans = () => {
      if (spans) options.onSpans!(spans.take())
    }
    return (async function* () {
      try {
        for await (const text of output) {
          yield text
          // Taken: the script may print more (see OUTPUT_WINDOW_CHARS).
          run?.consumed(text.length)
        }
        sendSpans()
      } catch (error) {
        if (report !== "") options.onReport?.(report)
        sendSpans()
        throw error
      } finally {
        // A consumer that stops reading early cancels the script rather than leave it blocked.
        if (!finished) abort.abort(new CancelledError())
      }
    })()
  }

  /**
   * A script waiting for its sub-agents lends its slot to them (their scripts may be queued
   * behind it: with one slot they would never run), and takes one again before it goes on.
   */
  private lending(lease: SlotLease, onSubagent: ExecuteOptions["onSubagent"], signal: AbortSignal): ExecuteOptions["onSubagent"] {
    let waitingFor = 0
    return async (prompt, subagentOptions) => {
      if (waitingFor++ === 0) lease.give()
      try {
        return await onSubagent(prompt, subagentOptions)
      } finally {
        if (--waitingFor === 0) await lease.take(signal)
      }
    }
  }

  async executeUnsafe(tool: string, params: unknown, options: { onAgentCall?: AgentCall } = {}): Promise<unknown> {
    // `clanka tool mcp.server.tool` may come right after the request that starts the servers.
    if (this.options.mcp && hasMcp(this.options.mcp) && tool.startsWith("mcp.")) await this.addMcp(this.options.mcp)
    else await this.mcpUpdate
    const processes = new ProcessRegistry(this.guard)
    this.started.add(processes)
    const ctx = this.context(new AbortController().signal, processes, {
      onTaskComplete: () => {},
      onSubagent: noSubagents,
      ...options,
    })
    try {
      return await this.tools.call(tool, params, ctx)
    } finally {
      if (processes.empty) this.started.delete(processes)
    }
  }

  async close(): Promise<void> {
    // The MCP servers are children of this process: closing their clients ends them.
    void this.mcpUpdate.then(() => this.mcp?.close())
    const groups = [...this.started].flatMap((processes) => processes.killAll())
    this.started.clear()
    this.guard.killAll()
    this.sandbox.close()
    await untilGone(groups)
  }

  private context(
    signal: AbortSignal,
    processes: ProcessRegistry,
    options: Pick<ExecuteOptions, "onTaskComplete" | "onSubagent" | "onAgentCall" | "images">,
  ): ToolContext {
    return {
      directory: this.directory,
      policy: this.policy,
      signal,
      processes,
      todos: this.todos,
      onTaskComplete: options.onTaskComplete,
      onSubagent: options.onSubagent,
      ...(options.images ? { images: options.images } : {}),
      // In this process the agent's side is here: its services run with this process's keys.
      agentCall: options.onAgentCall ?? ((service, params) => runAgentService(service, params, signal, options.images)),
    }
  }
}

function hasMcp(request: CapabilitiesRequest): boolean {
  return Object.keys(request.mcpServers ?? {}).length > 0 || (request.agentMcpTools?.length ?? 0) > 0 || (request.agentMcpFailures?.length ?? 0) > 0
}
