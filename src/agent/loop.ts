import { ClankaError, ExitCode } from "../errors.ts"
import { CancelledError, EXECUTE_TOOL, type Executor } from "../contract.ts"
import type { ImagePart, Message, Model, ToolSpec } from "../providers/model.ts"
import type { ContentPart } from "./events.ts"
import { validateJson } from "../schema/validate.ts"
import type { OutputLock } from "./output-lock.ts"
import { sleep } from "../util/sleep.ts"
import { asModelError, cutWaitNote, retryWaitMs, type RetryPolicy } from "./retry.ts"
import { streamTurn, TurnTimeoutError, type ToolCall, type TurnResult } from "./turn.ts"
import { UsageTotals } from "./usage.ts"
import { type HostEntry } from "./hosts.ts"
import type { SessionSink } from "../session/recorder.ts"
import type { UserContext } from "./user-context.ts"
import type { Budget } from "./budget.ts"
import type { HookRunner } from "./hooks.ts"
import { runToolCall } from "./tool-call.ts"
import { COMPACTION_SYSTEM, estimateTokens, isPromptTooLong, keptSummary, SUMMARY_HEADER, summaryRequest, tailStart, type Anchor } from "./compaction.ts"

/** Settings shared by an agent and all its sub-agents. */
export interface LoopShared {
  executor: Executor
  /** The sandbox functions, as the system prompt declares them. */
  toolNames: readonly string[]
  subagentModel: Model
  /** The system prompt of every sub-agent: built once, the same for all. */
  subagentSystem: string
  turnTimeoutMs: number
  maxTurns?: number
  retry: RetryPolicy
  maxNudges: number
  outputLimitBytes: number
  lock: OutputLock
  nextSubagentId(parent: string): string
  /** Sub-agents still running: the run's last event waits for them to report their end. */
  subagents: Set<Promise<unknown>>
  /** The run's hosts when it has several (hosts.ts); `host` is the one `executor` is. */
  hosts?: readonly HostEntry[]
  host?: string
  /** --max-budget-usd: checked before each model turn and after each script. */
  budget?: Budget
  /** The compaction threshold of sub-agents, in estimated input tokens. */
  subagentCompactAt: number
  /** How deep sub-agents may nest: 1 lets the agent delegate but not its sub-agents (--max-depth). */
  maxDepth: number
  /** Sub-agents that may run at once, across the whole run. */
  maxSubagents: number
  /** The user's instructions and skills: a script's skill(name) may ask for one of these. */
  user?: UserContext
  /** The config's hooks, and what their input names (the session, the scripts' directory). */
  hooks?: { runner: HookRunner; sessionId: string; cwd: string }
}

export interface LoopRun {
  id: string
  /** 0 for the top-level agent, 1 for its sub-agents, and so on. */
  depth: number
  model: Model
  system: string
  messages: Message[]
  conversation: boolean
  jsonSchema?: unknown
  signal: AbortSignal
  usage: UsageTotals
  emit(part: ContentPart): void
  /** Steering messages typed while the agent works (top-level agent only). */
  steering?: string[]
  /** The session that saves this history (top-level agent only). */
  session?: Pick<SessionSink, "message" | "output" | "compaction">
  /** Compact the history before a request estimated above this many input tokens. */
  compactAt: number
  /** What the provider reported for the latest request: the base of the next estimate. */
  anchor?: Anchor
}

interface LoopResult {
  summary: string
  turns: number
  /** The conversation's answer was cut at the output limit, or the model refused. */
  stop?: "length" | "refusal"
}

/** Ends a run: the message is the AgentError line, exitCode the process's. */
export class RunError extends ClankaError {
  override name = "RunError"
}

const NUDGE =
  "You answered without calling execute. If the task is not finished, continue with execute; if it is, call taskComplete(summary)."
const MAX_SCHEMA_TRIES = 3
const TASK_ALREADY_COMPLETE = "(not run: the task was already complete)"

/** The turn loop of one agent run: model turn, scripts, repeat until done. */
export async function runLoop(shared: LoopShared, run: LoopRun): Promise<LoopResult> {
  let turns = 0
  let nudges = 0
  let schemaFailures = 0
  let compactedForLength = false
  while (true) {
    if (run.steering?.length) {
      for (const line of run.steering.splice(0)) addMessage(run, { role: "user", content: line })
    }
    checkBudget(shared)
    if (shared.maxTurns !== undefined && turns >= shared.maxTurns) {
      throw new RunError(`stopped after ${turns} model turn${turns === 1 ? "" : "s"} (--max-turns ${shared.maxTurns}) before the task was complete`)
    }
    if (!compactedForLength && estimateTokens(run.system, run.messages, run.anchor) > run.compactAt) {
      await compactRun(shared, run)
      // The summary was paid for: once it reaches the budget, the turn it made room for does not start.
      checkBudget(shared)
    }
    let turn: TurnResult
    try {
      turn = await turnWithRetries(shared, run)
    } catch (error) {
      // "Prompt too long": compact and retry once instead of ending the run.
      if (!(error instanceof PromptTooLongError) || compactedForLength) throw error
      compactedForLength = true
      if (!(await compactRun(shared, run))) throw error
      continue
    }
    compactedForLength = false
    turns++
    run.usage.add(turn.usage)
    run.emit({ _tag: "Usage", ...run.usage.snapshot(), durationMs: Math.round(turn.durationMs) })
    if (turn.content.length) addMessage(run, { role: "assistant", content: turn.content })
    run.anchor = { count: run.messages.length, tokens: run.usage.contextTokens }
    if (turn.stop === "steered") continue

    if (turn.toolCalls.length === 0) {
      const text = turn.content.flatMap((item) => (item.type === "text" ? [item.text] : [])).join("\n").trim()
      // A line typed after the answer's last block ended but before the response did is still
      // steering: it gets its turn instead of being dropped when the run ends.
      if (run.conversation && run.steering?.length) continue
      if (run.conversation) return { summary: text, turns, ...(turn.stop === "length" || turn.stop === "refusal" ? { stop: turn.stop } : {}) }
      if (nudges < shared.maxNudges) {
        nudges++
        addMessage(run, { role: "user", content: NUDGE })
        continue
      }
      if (run.jsonSchema !== undefined) throw new RunError("the model stopped without a result for --json-schema")
      return { summary: text, turns }
    }
    nudges = 0

    let completed: string | undefined
    let structured: { value: unknown } | undefined
    const calls = [...turn.toolCalls]
    // Every call is answered, also those the loop did not get to (the run ended first) and one
    // whose run failed: every Script block has its ScriptOutput, and the history a result for
    // every call. A call leaves `calls` only once it has run.
    try {
      while (calls.length) {
        const call = calls[0]!
        const result = await runToolCall(shared, run, call)
        calls.shift()
        if (result.stopped) {
          // The model gets what the script printed before it was stopped, so a conversation
          // goes on from the truth.
          answer(run, call, result.output, result.images, true)
          throw result.stopped
        }
        let content = result.output
        let rejected: string[] | undefined
        if (result.summary !== undefined) {
          if (run.jsonSchema === undefined) completed = result.summary
          else {
            const verdict = checkStructured(run.jsonSchema, result.summary)
            if (verdict.ok) {
              completed = result.summary
              structured = { value: verdict.value }
            } else {
              rejected = verdict.errors
              content += `${content.endsWith("\n") ? "" : "\n"}taskComplete was rejected: the output does not match the JSON Schema:\n${verdict.errors.join("\n")}\nFix it and call taskComplete again.`
            }
          }
        }
        answer(run, call, content, result.images, result.failed)
        // taskComplete ends the run after the current script: later scripts do not run.
        if (completed !== undefined) break
        checkBudget(shared)
        if (rejected && ++schemaFailures >= MAX_SCHEMA_TRIES) {
          throw new RunError(`the result did not match --json-schema after ${MAX_SCHEMA_TRIES} tries: ${rejected.join("; ")}`)
        }
      }
    } finally {
      const reason = run.signal.aborted
        ? CUT_FOR_INTERRUPT
        : completed !== undefined
          ? TASK_ALREADY_COMPLETE
          : "(not run: the run ended before this script)"
      for (const call of calls) answer(run, call, reason, undefined, true)
    }
    if (completed !== undefined) {
      if (structured) run.emit({ _tag: "StructuredOutput", value: structured.value })
      return { summary: completed, turns }
    }
  }
}

function checkBudget(shared: LoopShared): void {
  const exceeded = shared.budget?.exceeded()
  if (exceeded) throw new RunError(exceeded)
}

/**
 * The one place a tool result is recorded: the model gets `content`, and an `execute` call (whose
 * Script block the stream showed) gets the same text as its ScriptOutput.
 */
function answer(run: LoopRun, call: ToolCall, content: string, images?: ImagePart[], failed?: boolean): void {
  if (call.name === EXECUTE_TOOL.name) run.emit({ _tag: "ScriptOutput", output: content, ...(failed ? { failed: true as const } : {}) })
  addMessage(run, { role: "tool", toolCallId: call.id, content, ...(images?.length ? { images } : {}) })
}

/** Every history item goes through here, so a session saves it as it is added. */
function addMessage(run: LoopRun, message: Message): void {
  run.messages.push(message)
  run.session?.message(message)
}

function checkStructured(schema: unknown, text: string): { ok: true; value: unknown } | { ok: false; errors: string[] } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { ok: false, errors: [`not valid JSON: ${(error as Error).message}`] }
  }
  const errors = validateJson(schema, value)
  return errors.length ? { ok: false, errors } : { ok: true, value }
}

/**
 * A Script block streamed in a response that is then dropped (cut off, or cut short by steering)
 * never runs. It still gets a ScriptOutput saying so, right after its ScriptEnd and before the
 * ErrorRetry: a consumer can rely on every ScriptEnd being followed by one ScriptOutput, and the
 * script text stays visible as the model wrote it (buffering scripts until the response is
 * complete would hide them while they stream).
 */
const CUT_FOR_RETRY = "(not run: the response was cut off and the turn is retried)"
const CUT_FOR_STEERING = "(not run: the response was cut off for your new message)"
const CUT_FOR_INTERRUPT = "(not run: interrupted by the user)"
const CUT_FOR_ERROR = "(not run: the response was cut off)"

/** The provider refused the request as too long for the model's context. */
class PromptTooLongError extends RunError {
  override name = "PromptTooLongError"
}

/**
 * Replaces the older history with a summary the model writes, keeping the newest turns that fit
 * in `keepTokens` (at least the newest one); false when there is nothing older to summarise.
 */
/** What a model request needs of the shared settings. */
type TurnSettings = Pick<LoopShared, "turnTimeoutMs" | "retry">

export async function compactRun(shared: TurnSettings, run: LoopRun, keepTokens = Math.floor(run.compactAt * 0.3)): Promise<boolean> {
  const started = performance.now()
  const before = estimateTokens(run.system, run.messages, run.anchor)
  const start = tailStart(run.messages, keepTokens)
  if (start < 2) return false
  const turn = await turnWithRetries(
    shared,
    {
      ...run,
      system: COMPACTION_SYSTEM,
      messages: summaryRequest(run.messages.slice(1, start), run.compactAt),
      emit: (part) => {
        if (part._tag === "ErrorRetry") run.emit(part)
      },
      steering: [],
    },
    [],
  )
  run.usage.addSpent(turn.usage)
  const summary = turn.content.flatMap((item) => (item.type === "text" ? [item.text] : [])).join("\n").trim()
  if (!summary) throw new RunError("the history could not be compacted: the model wrote an empty summary")
  const history: Message[] = [run.messages[0]!, { role: "user", content: `${SUMMARY_HEADER}\n\n${keptSummary(summary, run.compactAt)}` }, ...run.messages.slice(start)]
  run.messages.splice(0, run.messages.length, ...history)
  run.session?.compaction(history)
  run.anchor = undefined
  const after = estimateTokens(run.system, run.messages)
  run.usage.contextTokens = after
  run.emit({ _tag: "Compaction", beforeTokens: before, afterTokens: after, durationMs: Math.round(performance.now() - started) })
  return true
}

async function turnWithRetries(shared: TurnSettings, run: LoopRun, tools: ToolSpec[] = [EXECUTE_TOOL]): Promise<TurnResult> {
  for (let attempt = 0; ; attempt++) {
    let scripts = 0
    const dropScripts = (output: string) => {
      for (; scripts > 0; scripts--) run.emit({ _tag: "ScriptOutput", output, failed: true })
    }
    try {
      const turn = await streamTurn({
        model: run.model,
        system: run.system,
        messages: run.messages,
        tools,
        signal: run.signal,
        timeoutMs: shared.turnTimeoutMs,
        emit: (part) => {
          if (part._tag === "ScriptStart") scripts++
          run.emit(part)
        },
        steeringPending: () => (run.steering?.length ?? 0) > 0,
        onDroppedUsage: (usage) => run.usage.add(usage),
      })
      // A cut response keeps no tool calls; otherwise each streamed script is answered when run.
      if (turn.stop === "steered") dropScripts(CUT_FOR_STEERING)
      return turn
    } catch (raw) {
      if (raw instanceof CancelledError || run.signal.aborted) {
        dropScripts(CUT_FOR_INTERRUPT)
        throw new RunError("interrupted", ExitCode.interrupted)
      }
      const error = asModelError(raw)
      if (!error.retryable) {
        dropScripts(CUT_FOR_ERROR)
        throw isPromptTooLong(error) ? new PromptTooLongError(error.message) : new RunError(error.message)
      }
      if (attempt >= shared.retry.maxRetries) {
        dropScripts(CUT_FOR_ERROR)
        throw new RunError(`${error.message} (gave up after ${attempt + 1} attempts)`)
      }
      dropScripts(CUT_FOR_RETRY)
      run.emit({
        _tag: "ErrorRetry",
        error: { message: error.message + cutWaitNote(shared.retry, error.retryAfterMs), retryable: true, ...(error.status === undefined ? {} : { status: error.status }) },
      })
      // An inactivity timeout has already waited long enough: retry at once.
      if (!(error instanceof TurnTimeoutError)) {
        try {
          await sleep(retryWaitMs(shared.retry, attempt, error.retryAfterMs), run.signal)
        } catch {
          throw new RunError("interrupted", ExitCode.interrupted)
        }
      }
    }
  }
}
