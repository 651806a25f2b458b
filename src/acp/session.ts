/**
 * One ACP session: a clanka session (saved as `run` saves it) with its own executor in the
 * editor's `cwd`, built from `clanka acp`'s flags as `run` builds a run from its own, and an agent
 * in conversation mode that goes on across prompts. A prompt streams its events as session
 * updates (updates.ts) and ends with a stop reason; a failed one rejects with a TurnFailed.
 */
import type { ContentBlock, McpServer, PlanEntry, SessionUpdate, StopReason } from "@agentclientprotocol/sdk"
import { createAgent, type Agent } from "../agent/agent.ts"
import type { AgentEvent } from "../agent/events.ts"
import type { UserContext } from "../agent/user-context.ts"
import type { Executor } from "../contract.ts"
import { ClankaError, ExitCode, UsageError } from "../errors.ts"
import type { Model } from "../providers/model.ts"
import { parseTranscript } from "../session/transcript.ts"
import { readTranscriptText } from "../session/store.ts"
import type { SessionRecorder } from "../session/recorder.ts"
import { secondsFlag } from "../cli/duration.ts"
import { type ExecutorFlags, openExecutor, openHosts, projectConfig, sshHosts } from "../cli/executor-flags.ts"
import { budgetFlag, positiveWholeNumber, wholeNumber } from "../cli/run.ts"
import { chooseModels } from "../cli/model-choice.ts"
import { openSession, sessionSource, type SessionFlags } from "../cli/session-flags.ts"
import { mcpServersOf } from "./mcp.ts"
import { promptOf } from "./prompt.ts"
import { UpdateMapper } from "./updates.ts"
import { traceAgent } from "../telemetry/index.ts"

/** `clanka acp`'s flags: run's, without the prompt, the output and the session choice. */
export interface AcpFlags extends ExecutorFlags {
  model?: string
  "subagent-model"?: string
  "max-turns"?: string
  "turn-timeout"?: string
  system?: string
  session?: boolean
  "compact-at"?: string
  "max-budget-usd"?: string
  "max-depth"?: string
}

/** A prompt that ended in an error: the error response carries the one-line message. */
export class TurnFailed extends ClankaError {
  override name = "TurnFailed"
}

export interface SessionRequest {
  /** The editor's workspace, absolute. */
  cwd: string
  mcpServers: readonly McpServer[]
  /** session/load: the saved session to go on from. */
  load?: string
}

type Send = (update: SessionUpdate) => Promise<void>

/** A run stopped by --max-turns says so in its message (agent/loop.ts). */
const MAX_TURNS = /\(--max-turns \d+\)/

export class AcpSession {
  private running: AbortController | undefined
  private readonly mapper = new UpdateMapper()

  private constructor(
    readonly id: string,
    private readonly agent: Agent,
    readonly model: Model,
    private readonly executors: Executor[],
    private readonly recorder: SessionRecorder | undefined,
    /** The saved events a loaded session replays. */
    private readonly saved: AgentEvent[],
  ) {}

  static async open(flags: AcpFlags, request: SessionRequest, user: Promise<UserContext | undefined>): Promise<AcpSession> {
    const args: AcpFlags & SessionFlags = { ...flags }
    // The editor's cwd is the workspace: the local directory, or the remote one on an --ssh host
    // named without `:DIR`. An --executor command chooses its own.
    const hosts = sshHosts(flags)
    if (flags.executor === undefined && !hosts[0]?.target.includes(":")) args.directory = request.cwd
    if (request.load !== undefined) args.resume = request.load
    // A loaded session brings its model unless -m names one (its place is the editor's).
    const source = sessionSource(args)
    const { config, sources, directory } = projectConfig(args)
    const { model, subagentModel, spec } = await models(args, config, sources)
    // Flags beat the config files, as in run.
    const maxTurns = positiveWholeNumber("--max-turns", args["max-turns"] ?? (config.maxTurns === undefined ? undefined : String(config.maxTurns)))
    const turnTimeoutMs = secondsFlag("--turn-timeout", args["turn-timeout"] ?? (config.turnTimeout === undefined ? undefined : String(config.turnTimeout)))
    const compactAt = positiveWholeNumber("--compact-at", args["compact-at"])
    const maxDepth = wholeNumber("--max-depth", args["max-depth"], 0)
    const maxBudgetUsd = budgetFlag(args["max-budget-usd"], [model, subagentModel])
    const system = args.system ?? config.system

    const options = { searchLikely: true, mcpServers: mcpServersOf(request.mcpServers) }
    const opened = hosts.length > 1 ? await openHosts(args, hosts, options) : undefined
    const executors = opened ? opened.map((host) => host.executor) : [await openExecutor(args, options)]
    try {
      const session = await openSession(args, source, { model: spec, ...(args["subagent-model"] ? { subagentModel: args["subagent-model"] } : {}) })
      const context = await user
      for (const line of context?.warnings ?? []) process.stderr.write(`clanka: ${line}\n`)
      // The config's hooks, as for run: in the project's directory, on this machine.
      const hooks = config.hooks && (await import("../agent/hooks.ts")).createHooks(config.hooks, { cwd: directory })
      const agent = await traceAgent(createAgent, {
        ...(context ? { user: context } : {}),
        ...(hooks ? { hooks } : {}),
        ...(session.recorder ? { session: session.recorder } : {}),
        ...(session.history ? { history: session.history } : {}),
        resumedFrom: session.resumedFrom,
        executor: executors[0]!,
        ...(opened ? { hosts: opened } : {}),
        model,
        subagentModel,
        conversation: true,
        ...(system === undefined ? {} : { system }),
        ...(maxTurns === undefined ? {} : { maxTurns }),
        ...(turnTimeoutMs === undefined ? {} : { turnTimeoutMs }),
        ...(maxBudgetUsd === undefined ? {} : { maxBudgetUsd }),
        ...(compactAt === undefined ? {} : { compactAt }),
        ...(maxDepth === undefined ? {} : { maxDepth }),
      }, { executorKind: hosts.length > 0 ? "ssh" : flags.executor !== undefined ? "command" : "local", ...(hosts[0] ? { host: hosts[0].name } : {}) })
      const saved = source ? savedEvents(readTranscriptText(source)) : []
      return new AcpSession(agent.sessionId, agent, model, executors, session.recorder, saved)
    } catch (error) {
      await Promise.all(executors.map((executor) => executor.close()))
      throw error
    }
  }

  /** session/load: the saved conversation again, as the updates it made (the prompts included). */
  async replay(send: Send): Promise<void> {
    this.mapper.replay = true
    try {
      for (const event of this.saved) for (const update of this.mapper.map(event)) await send(update)
    } finally {
      this.mapper.replay = false
      this.saved.length = 0
    }
  }

  async prompt(blocks: readonly ContentBlock[], send: Send, signal: AbortSignal): Promise<StopReason> {
    if (this.running) throw new UsageError("a prompt is already running in this session; cancel it first (session/cancel)")
    const { text, images } = promptOf(blocks, this.model)
    const controller = new AbortController()
    this.running = controller
    const stop = () => controller.abort()
    signal.addEventListener("abort", stop, { once: true })
    let end: Extract<AgentEvent, { _tag: "AgentFinished" | "AgentError" }> | undefined
    try {
      for await (const event of this.agent.send(text, { signal: controller.signal, ...(images.length ? { images } : {}) })) {
        for (const update of this.mapper.map(event)) await send(update)
        if (this.mapper.changedTodos()) await this.sendPlan(send)
        if (event._tag === "AgentFinished" || event._tag === "AgentError") end = event
      }
    } finally {
      signal.removeEventListener("abort", stop)
      this.running = undefined
    }
    if (end?._tag === "AgentFinished") return end.stop === "length" ? "max_tokens" : end.stop === "refusal" ? "refusal" : "end_turn"
    if (controller.signal.aborted || end?.exitCode === ExitCode.interrupted) return "cancelled"
    if (end && MAX_TURNS.test(end.message)) return "max_turn_requests"
    throw new TurnFailed(end?.message ?? "the run ended without a result", end?.exitCode ?? ExitCode.failed)
  }

  /** session/cancel: the running prompt stops (its model request and its script). */
  cancel(): void {
    this.running?.abort()
  }

  /** Ends the session: its scripts and their processes, and the transcript's writing. */
  async close(): Promise<void> {
    this.running?.abort()
    await Promise.all(this.executors.map((executor) => executor.close()))
    this.recorder?.close()
  }

  /** The todo list as the editor's plan (the executor keeps it). */
  private async sendPlan(send: Send): Promise<void> {
    let todos: { text: string; completed: boolean }[]
    try {
      todos = (await this.executors[0]!.executeUnsafe("listTodos", undefined)) as typeof todos
    } catch {
      return // An executor without the todo tools has no plan to show.
    }
    const entries: PlanEntry[] = todos.map((todo) => ({ content: todo.text, priority: "medium", status: todo.completed ? "completed" : "pending" }))
    await send({ sessionUpdate: "plan", entries })
  }
}

/** The top-level events of a transcript, in order (sub-agents' parts are left to their summaries). */
function savedEvents(text: string): AgentEvent[] {
  return parseTranscript(text, ["event"]).flatMap((line) => (line.type === "event" && line.event._tag !== "SubagentPart" ? [line.event] : []))
}

/** The models, as `run` chooses them: flags, then CLANKA_MODEL, then the config files, then the key that is set. */
async function models(args: AcpFlags, config: ReturnType<typeof projectConfig>["config"], sources: ReturnType<typeof projectConfig>["sources"]) {
  const subagentSpec = args["subagent-model"] ?? config.subagentModel
  const subagentFile = args["subagent-model"] === undefined ? sources.subagentModel : undefined
  const { model, subagentModel, spec } = await chooseModels({
    flag: args.model,
    configModel: config.model,
    configFile: sources.model,
    subagent: subagentSpec,
    subagentFile,
  })
  if (subagentSpec && !args["subagent-model"]) args["subagent-model"] = subagentSpec
  return { model, subagentModel, spec }
}
