import { ClankaError, ExitCode } from "../errors.ts"
import { EXECUTE_TOOL, type Capabilities, type Executor, type PromptFacts } from "../contract.ts"
import type { ImagePart, Message, Model } from "../providers/model.ts"
import { AsyncQueue } from "../util/async-queue.ts"
import { errorMessage } from "../util/error-message.ts"
import type { AgentEvent } from "./events.ts"
import { compactRun, runLoop, type LoopShared } from "./loop.ts"
import { defaultCompactAt } from "./compaction.ts"
import { OutputLock } from "./output-lock.ts"
import { DEFAULT_RETRY, type RetryPolicy } from "./retry.ts"
import { buildSystemPrompt, toolNamesFromDts } from "./system-prompt.ts"
import { type AgentHost, type HostEntry, hostsSection, prepareHosts } from "./hosts.ts"
import { UsageTotals } from "./usage.ts"
import { type EarlyModel, withEarlyRequest } from "./early-request.ts"
import { Budget } from "./budget.ts"
import type { SessionSink } from "../session/recorder.ts"
import type { UserContext } from "./user-context.ts"
import type { HookRunner } from "./hooks.ts"

export const DEFAULT_MAX_DEPTH = 1
export const DEFAULT_MAX_SUBAGENTS = 8

export interface AgentOptions {
  executor: Executor
  model: Model
  /** Model of delegate() sub-agents (default: `model`). */
  subagentModel?: Model
  /** Extra system instructions (--system). */
  system?: string
  /** Conversation mode: a text-only answer ends the turn; taskComplete is not required. */
  conversation?: boolean
  /** Inactivity timeout of one model turn (default 300 s). */
  turnTimeoutMs?: number
  /** Stop with an error after this many model turns. */
  maxTurns?: number
  /** JSON Schema the taskComplete output must match (--json-schema). */
  jsonSchema?: unknown
  retry?: Partial<RetryPolicy>
  /** How often a turn without a script is nudged before its text becomes the summary (default 2). */
  maxNudges?: number
  /** Cap of the script output sent back to the model (default 64 KiB). */
  outputLimitBytes?: number
  /**
   * Every host of a run over several (the first is `executor`'s): the others are reached through
   * `delegate(task, { host })`. Ignored with fewer than two.
   */
  hosts?: readonly AgentHost[]
  /** Saves the history and the events as they happen; its id is the session id. */
  session?: SessionSink
  /** The history to go on from (a resumed or forked session). */
  history?: Message[]
  /** The session this agent's history came from: AgentStart's `resumedFrom` (default null). */
  resumedFrom?: string | null
  /** Stop after the script in flight once the run (sub-agents included) has cost this much. */
  maxBudgetUsd?: number
  /** Compact the history before a request estimated above this many tokens (default 80 % of the window). */
  compactAt?: number
  /** How deep sub-agents nest (default 1: the agent delegates, its sub-agents do not; 0: no delegate). */
  maxDepth?: number
  /** Sub-agents running at once across the run (default 8); a delegate() past it fails. */
  maxSubagents?: number
  /** The user's own AGENTS.md and skills (loadUserContext), for every prompt of the run and skill(). */
  user?: UserContext
  /** The `hooks` of the config (hooks.ts): run at the session's start, around scripts, at each run's end. */
  hooks?: HookRunner
}

export interface SendOptions {
  /** Aborting stops the run: the model stream and the running script; it ends with AgentError 130. */
  signal?: AbortSignal
  /** Images shown with the prompt (--image), already checked against the model's limits. */
  images?: ImagePart[]
  /**
   * Steering messages the run ended without giving the model (it finished, failed or was stopped
   * first: a steer sent while the last script ran), in the order they were sent; called once.
   */
  onUndelivered?(messages: string[]): void
}

export interface Agent {
  readonly sessionId: string
  /** The conversation so far; kept across send() calls. */
  readonly history: Message[]
  /** Runs the agent on a prompt; the events end with AgentFinished or AgentError. */
  send(prompt: string, options?: SendOptions): AsyncIterable<AgentEvent>
  /** Queues a message for the running agent: it cuts the stream at the next block end. */
  steer(message: string): void
  /**
   * Summarises the older history now (/compact): yields a Compaction event, or nothing when the
   * history is too short to compact; rejects when the summary request fails.
   */
  compact(options?: SendOptions): AsyncIterable<AgentEvent>
}

export const DEFAULT_TURN_TIMEOUT_MS = 300_000

/** Whether a history has images to read again (a resumed session's) or to take out (a model without image input). */
function needsRestore(history: readonly Message[], model: Model): boolean {
  return history.some((message) => message.role !== "assistant" && message.images?.some((image) => !model.imageInput || typeof image.data !== "string"))
}

function shortId(): string {
  return crypto.randomUUID().slice(0, 8)
}

export function createAgent(options: AgentOptions): Agent {
  const session = options.session
  const sessionId = session?.id ?? crypto.randomUUID()
  const history: Message[] = options.history ? [...options.history] : []
  const steering: string[] = []
  let capabilities: Promise<Capabilities> | undefined
  let hostsReady: Promise<HostEntry[]> | undefined
  /** The images of a resumed history, read again once (session/images.ts). */
  let imagesRestored: Promise<void> | undefined
  const restoreImages = (signal: AbortSignal) =>
    (imagesRestored ??= needsRestore(history, options.model)
      ? import("../session/images.ts")
          .then(({ restoreImages }) => restoreImages(history, options.model, options.executor, signal))
          // Interrupted: the next prompt tries again.
          .catch((error) => {
            imagesRestored = undefined
            throw error
          })
      : Promise.resolve())
  let running = false
  let sessionStarted = false
  let subagentCounter = 0
  const compactAt = options.compactAt ?? defaultCompactAt(options.model.contextWindow)
  const mainSystem = (caps: PromptFacts, hosts?: readonly HostEntry[]) =>
    buildSystemPrompt({
      ...caps,
      user: options.user,
      conversation: options.conversation ?? false,
      ...(options.jsonSchema === undefined ? {} : { jsonSchema: options.jsonSchema }),
      ...(options.system === undefined ? {} : { extra: options.system }),
      ...(hosts ? { hosts: hostsSection(hosts) } : {}),
    })

  /**
   * A fresh run on an executor that is still starting: the first model request goes out now,
   * with the system prompt built from what the executor is expected to announce (early-request.ts).
   * Not when a sessionStart hook is to run first.
   */
  function earlyFirstRequest(first: Message): (EarlyModel & { facts(): PromptFacts | undefined }) | undefined {
    const expected = options.executor.expectedPrompt
    if (!expected || history.length > 0 || (options.hosts && options.hosts.length > 1) || options.hooks?.has("sessionStart")) return undefined
    let known: PromptFacts | undefined
    const request = expected
      .call(options.executor)
      .then((facts) => {
        known = facts
        return facts ? { system: mainSystem(facts), messages: [first], tools: [EXECUTE_TOOL] } : undefined
      })
      .catch(() => undefined)
    return { ...withEarlyRequest(options.model, request), facts: () => known }
  }

  /**
   * The run's system prompt: that of the early request, when the executor announced the same
   * tools, directory and sandbox (the files and machine facts the agent read itself a moment
   * earlier are as true, and a `git status` or a shell that answered a bit differently must not
   * cost the request); else the executor's own.
   */
  function runSystem(caps: Capabilities, early: ReturnType<typeof earlyFirstRequest>, hosts?: readonly HostEntry[]): string {
    const facts = early?.facts()
    const same = (a: PromptFacts["sandbox"], b: PromptFacts["sandbox"]) => a?.mode === b?.mode && a?.network === b?.network && a?.backend === b?.backend
    if (facts && !hosts && facts.toolsDts === caps.toolsDts && facts.directory === caps.directory && same(facts.sandbox, caps.sandbox)) return mainSystem(facts)
    // The executor answered before the agent had read the files itself: no early request now.
    if (!facts) early?.cancel()
    return mainSystem(caps, hosts)
  }

  async function* send(prompt: string, sendOptions: SendOptions = {}): AsyncGenerator<AgentEvent> {
    if (running) throw new ClankaError("the agent is already running; use steer() to add a message")
    running = true
    const controller = new AbortController()
    const outer = sendOptions.signal
    const onAbort = () => controller.abort(outer?.reason)
    if (outer?.aborted) onAbort()
    else outer?.addEventListener("abort", onAbort, { once: true })

    const queue = new AsyncQueue<AgentEvent>()
    const lock = new OutputLock((event) => {
      session?.event(event)
      queue.push(event)
    })
    const id = shortId()
    const started = performance.now()
    const budget = options.maxBudgetUsd === undefined ? undefined : new Budget(options.maxBudgetUsd)
    const usage = new UsageTotals(options.model, budget)

    const subagents = new Set<Promise<unknown>>()
    /**
     * Sub-agents still running when the run ends (interrupted, failed, or left un-awaited by a
     * finished script) are stopped, and each reports its end (SubagentComplete) before the run's
     * last event.
     */
    const stopSubagents = async () => {
      if (subagents.size === 0) return
      controller.abort(new Error("the run ended"))
      while (subagents.size) await Promise.all([...subagents])
    }
    const hooks = options.hooks
    let directory: string | undefined
    /** The `stop` hooks, before the run's last event. */
    const stopHooks = async (end: { summary: string | null; error: string | null; exitCode: number }) => {
      if (hooks?.has("stop") && directory !== undefined) await hooks.run("stop", { sessionId, cwd: directory, ...end }, (part) => lock.emit(id, part))
    }
    const first: Message = { role: "user", content: prompt, ...(sendOptions.images?.length ? { images: sendOptions.images } : {}) }
    const early = capabilities === undefined ? earlyFirstRequest(first) : undefined
    const work = (async () => {
      try {
        const caps = await (capabilities ??= options.executor.capabilities())
        directory = caps.directory
        const toolNames = toolNamesFromDts(caps.toolsDts)
        const hosts = options.hosts && options.hosts.length > 1 ? await (hostsReady ??= prepareHosts(options.hosts, caps, options.system, options.user)) : undefined
        lock.emit(id, {
          _tag: "AgentStart",
          id,
          prompt,
          ...(sendOptions.images?.length ? { images: sendOptions.images.map((image) => image.path ?? "") } : {}),
          provider: options.model.provider,
          model: options.model.id,
          sessionId,
          resumedFrom: options.resumedFrom ?? null,
          directory: caps.directory,
          tools: toolNames,
          sandbox: { mode: caps.sandbox.mode, network: caps.sandbox.network, ...(caps.sandbox.backend ? { backend: caps.sandbox.backend } : {}) },
        })
        if (!sessionStarted) {
          sessionStarted = true
          if (hooks?.has("sessionStart")) {
            const payload = { sessionId, cwd: caps.directory, resumedFrom: options.resumedFrom ?? null, prompt }
            await hooks.run("sessionStart", payload, (part) => lock.emit(id, part), controller.signal)
          }
        }
        const shared: LoopShared = {
          executor: options.executor,
          toolNames,
          subagentModel: options.subagentModel ?? options.model,
          subagentSystem: buildSystemPrompt({
            ...caps,
            user: options.user,
            subagent: true,
            ...(options.system === undefined ? {} : { extra: options.system }),
          }),
          turnTimeoutMs: options.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS,
          ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
          retry: { ...DEFAULT_RETRY, ...options.retry },
          maxNudges: options.maxNudges ?? 2,
          outputLimitBytes: options.outputLimitBytes ?? 64 * 1024,
          lock,
          nextSubagentId: (parent) => `${parent}.${++subagentCounter}`,
          subagents,
          ...(hosts ? { hosts, host: hosts[0]!.name } : {}),
          ...(budget ? { budget } : {}),
          subagentCompactAt: options.compactAt ?? defaultCompactAt((options.subagentModel ?? options.model).contextWindow),
          maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
          maxSubagents: options.maxSubagents ?? DEFAULT_MAX_SUBAGENTS,
          ...(options.user ? { user: options.user } : {}),
          ...(hooks ? { hooks: { runner: hooks, sessionId, cwd: caps.directory } } : {}),
        }
        await restoreImages(controller.signal)
        history.push(first)
        session?.message(first)
        const result = await runLoop(shared, {
          id,
          depth: 0,
          model: early?.model ?? options.model,
          system: runSystem(caps, early, hosts),
          messages: history,
          conversation: options.conversation ?? false,
          ...(options.jsonSchema === undefined ? {} : { jsonSchema: options.jsonSchema }),
          signal: controller.signal,
          usage,
          emit: (part) => lock.emit(id, part),
          steering,
          ...(session ? { session } : {}),
          compactAt,
        })
        await stopSubagents()
        await stopHooks({ summary: result.summary, error: null, exitCode: ExitCode.ok })
        lock.emit(id, {
          _tag: "AgentFinished",
          summary: result.summary,
          durationMs: Math.round(performance.now() - started),
          turns: result.turns,
          usage: usage.snapshot(),
          ...(result.stop ? { stop: result.stop } : {}),
        })
      } catch (error) {
        const interrupted = controller.signal.aborted
        const message = interrupted ? "interrupted" : errorMessage(error).split("\n")[0]!
        const exitCode = interrupted
          ? ExitCode.interrupted
          : error instanceof ClankaError
            ? error.exitCode
            : ExitCode.failed
        await stopSubagents()
        lock.flush()
        await stopHooks({ summary: null, error: message, exitCode })
        lock.emit(id, { _tag: "AgentError", message, exitCode })
      } finally {
        early?.cancel()
        lock.flush()
        queue.end()
      }
    })()

    try {
      yield* queue
    } finally {
      // A consumer that stops reading stops the run.
      controller.abort(new Error("the consumer stopped reading"))
      await work
      outer?.removeEventListener("abort", onAbort)
      const undelivered = steering.splice(0)
      running = false
      if (undelivered.length) sendOptions.onUndelivered?.(undelivered)
    }
  }

  async function* compact(sendOptions: SendOptions = {}): AsyncGenerator<AgentEvent> {
    if (running) throw new ClankaError("the agent is running; compact between prompts")
    running = true
    const events: AgentEvent[] = []
    const emit = (event: AgentEvent) => {
      session?.event(event)
      events.push(event)
    }
    try {
      const caps = await (capabilities ??= options.executor.capabilities())
      const signal = sendOptions.signal ?? new AbortController().signal
      await restoreImages(signal)
      const shared = { turnTimeoutMs: options.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS, retry: { ...DEFAULT_RETRY, ...options.retry } }
      const usage = new UsageTotals(options.model)
      try {
        await compactRun(shared, {
          id: shortId(),
          depth: 0,
          model: options.model,
          system: mainSystem(caps),
          messages: history,
          conversation: true,
          signal,
          usage,
          emit,
          ...(session ? { session } : {}),
          compactAt,
        }, 0) // asked for: keep only the newest turn
      } finally {
        // The summary request is paid for whether or not the compaction went through.
        session?.spent(usage.snapshot().costUsd)
      }
    } finally {
      running = false
    }
    yield* events
  }

  return {
    sessionId,
    history,
    send,
    compact,
    steer(message: string) {
      if (message.trim()) steering.push(message)
    },
  }
}
