import { CancelledError, ClankaError, ExitCode, ScriptError } from "../errors.ts"
import type { Capabilities, Executor } from "../executor/executor.ts"
import type { Message, Model } from "../providers/model.ts"
import { OutputCap } from "../sandbox/output-cap.ts"
import type { ContentPart } from "./events.ts"
import { validateJson } from "./json-schema.ts"
import type { OutputLock } from "./output-lock.ts"
import { backoffMs, sleep, toModelError, type RetryPolicy } from "./retry.ts"
import { buildSystemPrompt, EXECUTE_TOOL } from "./system-prompt.ts"
import { scriptOf, streamTurn, TurnTimeoutError, type ToolCall, type TurnResult } from "./turn.ts"
import { UsageTotals } from "./usage.ts"

/** Settings shared by an agent and all its sub-agents. */
export interface LoopShared {
  executor: Executor
  capabilities: Capabilities
  subagentModel: Model
  system?: string
  turnTimeoutMs: number
  maxTurns?: number
  retry: RetryPolicy
  maxNudges: number
  outputLimitBytes: number
  lock: OutputLock
  nextSubagentId(parent: string): string
}

export interface LoopRun {
  id: string
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
}

export interface LoopResult {
  summary: string
  turns: number
  structured?: { value: unknown }
}

/** Ends a run: the message is the AgentError line, exitCode the process's. */
export class RunError extends ClankaError {
  override name = "RunError"
}

export const NUDGE =
  "You answered without calling execute. If the task is not finished, continue with execute; if it is, call taskComplete(summary)."
const MAX_SCHEMA_TRIES = 3

/** The turn loop of one agent run: model turn, scripts, repeat until done. */
export async function runLoop(shared: LoopShared, run: LoopRun): Promise<LoopResult> {
  let turns = 0
  let nudges = 0
  let schemaFailures = 0
  while (true) {
    if (run.steering?.length) {
      for (const line of run.steering.splice(0)) run.messages.push({ role: "user", content: line })
    }
    if (shared.maxTurns !== undefined && turns >= shared.maxTurns) {
      throw new RunError(`stopped after ${turns} model turns (--max-turns ${shared.maxTurns}) before the task was complete`)
    }
    const turn = await turnWithRetries(shared, run)
    turns++
    run.usage.add(run.model.provider, run.model.id, turn.usage)
    run.emit({ _tag: "Usage", ...run.usage.snapshot(), durationMs: Math.round(turn.durationMs) })
    if (turn.content.length) run.messages.push({ role: "assistant", content: turn.content })
    if (turn.stop === "steered") continue

    if (turn.toolCalls.length === 0) {
      const text = turn.content.flatMap((item) => (item.type === "text" ? [item.text] : [])).join("\n").trim()
      // A line typed after the answer's last block ended but before the response did is still
      // steering: it gets its turn instead of being dropped when the run ends.
      if (run.conversation && run.steering?.length) continue
      if (run.conversation) return { summary: text, turns }
      if (nudges < shared.maxNudges) {
        nudges++
        run.messages.push({ role: "user", content: NUDGE })
        continue
      }
      if (run.jsonSchema !== undefined) throw new RunError("the model stopped without a result for --json-schema")
      return { summary: text, turns }
    }
    nudges = 0

    let completed: string | undefined
    for (const call of turn.toolCalls) {
      const result = await runToolCall(shared, run, call)
      let content = result.output
      if (result.summary !== undefined) {
        if (run.jsonSchema === undefined) completed = result.summary
        else {
          const verdict = checkStructured(run.jsonSchema, result.summary)
          if (verdict.ok) {
            completed = result.summary
            run.emit({ _tag: "StructuredOutput", value: verdict.value })
            return { summary: result.summary, turns, structured: { value: verdict.value } }
          }
          schemaFailures++
          if (schemaFailures >= MAX_SCHEMA_TRIES) {
            throw new RunError(`the result did not match --json-schema after ${MAX_SCHEMA_TRIES} tries: ${verdict.errors.join("; ")}`)
          }
          content += `\ntaskComplete was rejected: the output does not match the JSON Schema:\n${verdict.errors.join("\n")}\nFix it and call taskComplete again.`
        }
      }
      run.messages.push({ role: "tool", toolCallId: call.id, content })
    }
    if (completed !== undefined) return { summary: completed, turns }
  }
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

async function turnWithRetries(shared: LoopShared, run: LoopRun): Promise<TurnResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await streamTurn({
        model: run.model,
        system: run.system,
        messages: run.messages,
        tools: [EXECUTE_TOOL],
        signal: run.signal,
        timeoutMs: shared.turnTimeoutMs,
        emit: run.emit,
        steeringPending: () => (run.steering?.length ?? 0) > 0,
      })
    } catch (raw) {
      if (raw instanceof CancelledError || run.signal.aborted) throw new RunError("interrupted", ExitCode.interrupted)
      const error = toModelError(raw)
      if (!error.retryable) throw new RunError(error.message)
      if (attempt >= shared.retry.maxRetries) {
        throw new RunError(`${error.message} (gave up after ${attempt + 1} attempts)`)
      }
      run.emit({
        _tag: "ErrorRetry",
        error: { message: error.message, retryable: true, ...(error.status === undefined ? {} : { status: error.status }) },
      })
      // An inactivity timeout has already waited long enough: retry at once.
      if (!(error instanceof TurnTimeoutError)) {
        try {
          await sleep(backoffMs(shared.retry, attempt), run.signal)
        } catch {
          throw new RunError("interrupted", ExitCode.interrupted)
        }
      }
    }
  }
}

/** Runs one `execute` call; the result is what the model sees (capped output, error line). */
async function runToolCall(shared: LoopShared, run: LoopRun, call: ToolCall): Promise<{ output: string; summary?: string }> {
  if (call.name !== EXECUTE_TOOL.name) {
    return { output: `error: there is no tool "${call.name}"; the only tool is execute({ script }).` }
  }
  const script = scriptOf(call.input)
  if (script === undefined) return { output: 'error: execute needs { "script": string }.' }

  const cap = new OutputCap(shared.outputLimitBytes)
  let summary: string | undefined
  let failure: string | undefined
  try {
    for await (const text of shared.executor.execute({
      script,
      signal: run.signal,
      onTaskComplete: (text) => (summary = text),
      onSubagent: (prompt) => runSubagent(shared, run, prompt),
    })) {
      cap.push(text)
    }
  } catch (error) {
    if (error instanceof ScriptError) failure = error.message
    else if (error instanceof CancelledError || run.signal.aborted) throw new RunError("interrupted", ExitCode.interrupted)
    else if (error instanceof ClankaError) throw new RunError(error.message, error.exitCode)
    else throw error
  }
  let output = cap.toString()
  if (failure !== undefined) output += `${output && !output.endsWith("\n") ? "\n" : ""}The script failed: ${failure}`
  if (!output) output = "(no output)"
  run.emit({ _tag: "ScriptOutput", output })
  return summary === undefined ? { output } : { output, summary }
}

/** delegate(task): a nested loop with empty history on the sub-agent model. */
async function runSubagent(shared: LoopShared, parent: LoopRun, prompt: string): Promise<string> {
  const id = shared.nextSubagentId(parent.id)
  const model = shared.subagentModel
  shared.lock.emit(id, { _tag: "SubagentStart", id, prompt, provider: model.provider, model: model.id })
  const usage = new UsageTotals(model.contextWindow)
  try {
    const result = await runLoop(shared, {
      id,
      model,
      system: buildSystemPrompt({
        toolsDts: shared.capabilities.toolsDts,
        agentsMd: shared.capabilities.agentsMd,
        directory: shared.capabilities.directory,
        subagent: true,
        ...(shared.system === undefined ? {} : { extra: shared.system }),
      }),
      messages: [{ role: "user", content: prompt }],
      conversation: false,
      signal: parent.signal,
      usage,
      emit: (part) => shared.lock.emit(id, { _tag: "SubagentPart", id, part }, part),
    })
    shared.lock.emit(id, { _tag: "SubagentComplete", id, summary: result.summary })
    return result.summary
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    shared.lock.emit(id, { _tag: "SubagentComplete", id, summary: `sub-agent failed: ${message}` })
    throw new Error(`sub-agent failed: ${message}`)
  } finally {
    shared.lock.release(id)
    parent.usage.addTotals(usage)
  }
}

