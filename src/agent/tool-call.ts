/** One `execute` call of a turn, and delegate()'s sub-agents. */
import { ClankaError, ExitCode } from "../errors.ts"
import { CancelledError, EXECUTE_TOOL, SCRIPT_FIELD, ScriptError, scriptOf, ToolError } from "../contract.ts"
import type { ImagePart } from "../providers/model.ts"
import { ScriptImages } from "./script-images.ts"
import { parseToolInput } from "../providers/tool-input.ts"
import { OutputCap } from "../util/output-cap.ts"
import { LiveOutput } from "./live-output.ts"
import type { ToolCall } from "./turn.ts"
import { UsageTotals } from "./usage.ts"
import { errorMessage } from "../util/error-message.ts"
import { findHost, listHosts, type HostEntry } from "./hosts.ts"
import { type LoopRun, type LoopShared, RunError, runLoop } from "./loop.ts"

/**
 * Runs one `execute` call; the result is what the model sees (capped output, error line). The
 * caller records it (answer()).
 */
interface ToolCallResult {
  output: string
  /** What the script showed the model (readImage, MCP tools), to go after `output`. */
  images?: ImagePart[]
  summary?: string
  /** The script threw, did not parse, timed out or never ran. */
  failed?: boolean
  /** The run must stop (interrupted, executor lost); `output` is what the script printed until then. */
  stopped?: RunError
}

export async function runToolCall(shared: LoopShared, run: LoopRun, call: ToolCall): Promise<ToolCallResult> {
  if (call.name !== EXECUTE_TOOL.name) return { output: unknownToolError(shared, call.name) }
  const script = scriptOf(call.input)
  if (script === undefined) {
    return {
      output: `error: execute takes {"script": "<JavaScript program>"} but got ${describeInput(call.input)}; nothing ran. Call execute again with the program in "script".`,
      failed: true,
    }
  }

  const hooks = shared.hooks
  const about = hooks && { sessionId: hooks.sessionId, cwd: hooks.cwd, agent: run.id, ...(shared.host === undefined ? {} : { host: shared.host }), script }
  if (hooks?.runner.has("preExecute")) {
    // Exit 2 blocks the script: it never reaches the executor, and the model is told why.
    const { blocked } = await hooks.runner.run("preExecute", about!, run.emit, run.signal)
    if (blocked !== undefined) return { output: `[blocked by a hook] ${blocked}` }
  }
  const cap = new OutputCap(shared.outputLimitBytes)
  const shown = new ScriptImages(run.model)
  const images = shown.policy
  const live = new LiveOutput(shared.outputLimitBytes)
  let summary: string | undefined
  let failure: string | undefined
  let stopped: { error: RunError; note: string } | undefined
  try {
    for await (const text of shared.executor.execute({
      script,
      signal: run.signal,
      onTaskComplete: (text) => (summary = text),
      onSubagent: (prompt, options) => runSubagent(shared, run, prompt, options?.host),
      images,
      onAgentCall: async (service, params) => {
        if (service === "hosts") return listHosts(shared.hosts, shared.host)
        if (service === "skill") return (await import("../skills/user.ts")).answerUserSkill(shared.user?.dir, params)
        // An agent-side MCP tool's images go to this script's images too.
        return (await import("../tools/agent-services.ts")).runAgentService(service, params, run.signal, images)
      },
    })) {
      cap.push(text)
      run.session?.output(call.id, text)
      const delta = live.take(text)
      if (delta) run.emit({ _tag: "ScriptOutputDelta", id: call.id, text: delta })
    }
  } catch (error) {
    if (error instanceof CancelledError || run.signal.aborted)
      stopped = { error: new RunError("interrupted", ExitCode.interrupted), note: "[interrupted by the user]" }
    else if (error instanceof ScriptError) failure = error.message
    else if (error instanceof ClankaError)
      stopped = { error: new RunError(error.message, error.exitCode), note: `[stopped: ${error.message}]` }
    else throw error
  }
  if (hooks?.runner.has("postExecute")) {
    const error = stopped ? stopped.error.message : (failure ?? null)
    await hooks.runner.run("postExecute", { ...about!, output: cap.toString(), error }, run.emit)
  }
  let output = shown.annotate(cap.toString())
  const newline = output && !output.endsWith("\n") ? "\n" : ""
  const withImages = shown.images.length ? { images: shown.images } : {}
  if (stopped) return { output: `${output}${newline}${stopped.note}`, stopped: stopped.error, ...withImages }
  if (failure !== undefined) output += `${newline}The script failed: ${capped(failure, shared.outputLimitBytes / 4)}`
  if (!output) output = "(no output)"
  return { output, ...withImages, ...(summary === undefined ? {} : { summary }), ...(failure === undefined ? {} : { failed: true }) }
}

/**
 * A script's error as the model gets it: a message can be as long as the script likes (`throw new
 * Error(big)`), or an executor sends; it is held to part of the output's budget, head and tail.
 */
function capped(text: string, limitBytes: number): string {
  const cap = new OutputCap(Math.max(1024, Math.floor(limitBytes)))
  cap.push(text)
  return cap.toString()
}

function unknownToolError(shared: LoopShared, name: string): string {
  // Models used to tool-per-function agents sometimes call a sandbox function as a tool.
  if (shared.toolNames.includes(name)) {
    return `error: ${name} is a function inside the execute sandbox, not a tool. Call execute with a program that uses it, e.g. {"script": "console.log(await ${name}(…))"}.`
  }
  return `error: there is no tool ${JSON.stringify(name)}. Your only tool is execute, with {"script": "<JavaScript program>"}; the functions declared in the system prompt are available inside the program.`
}

function describeInput(input: unknown): string {
  if (typeof input === "string") input = parseToolInput(input)
  if (input && typeof input === "object" && !Array.isArray(input)) {
    const keys = Object.keys(input)
    if (keys.includes(SCRIPT_FIELD)) return `a "${SCRIPT_FIELD}" that is not a string`
    return keys.length ? `the keys ${keys.map((key) => JSON.stringify(key)).join(", ")}` : "no arguments"
  }
  const text = JSON.stringify(input) ?? String(input)
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

/** delegate(task): a nested loop with empty history on the sub-agent model. */
function runSubagent(shared: LoopShared, parent: LoopRun, prompt: string, host?: string): Promise<string> {
  // Told in the prompt is not enough: a model that always delegates would nest without end.
  if (parent.depth + 1 > shared.maxDepth) {
    const why = shared.maxDepth === 0 ? "this run has no sub-agents (--max-depth 0)" : `sub-agents nest at most ${shared.maxDepth} deep (--max-depth ${shared.maxDepth})`
    return Promise.reject(new ToolError(`delegate: ${why}; do the task in this agent`))
  }
  if (shared.subagents.size >= shared.maxSubagents) {
    return Promise.reject(new ToolError(`delegate: ${shared.maxSubagents} sub-agents are already running, the most at once; wait for one to finish`))
  }
  let where = shared
  if (host !== undefined) {
    let entry: HostEntry
    try {
      entry = findHost(shared.hosts, host)
    } catch (error) {
      return Promise.reject(error)
    }
    where = { ...shared, executor: entry.executor, toolNames: entry.toolNames, subagentSystem: entry.subagentSystem, host: entry.name }
  }
  const running = subagentLoop(where, parent, prompt, host)
  const settled = running.catch(() => {})
  shared.subagents.add(settled)
  void settled.then(() => shared.subagents.delete(settled))
  return running
}

async function subagentLoop(shared: LoopShared, parent: LoopRun, prompt: string, host: string | undefined): Promise<string> {
  const id = shared.nextSubagentId(parent.id)
  const model = shared.subagentModel
  shared.lock.emit(id, { _tag: "SubagentStart", id, prompt, provider: model.provider, model: model.id, ...(host === undefined ? {} : { host }) })
  const usage = new UsageTotals(model, shared.budget)
  try {
    const result = await runLoop(shared, {
      id,
      depth: parent.depth + 1,
      model,
      system: shared.subagentSystem,
      messages: [{ role: "user", content: prompt }],
      conversation: false,
      compactAt: shared.subagentCompactAt,
      signal: parent.signal,
      usage,
      emit: (part) => shared.lock.emit(id, { _tag: "SubagentPart", id, part }, part),
    })
    shared.lock.emit(id, { _tag: "SubagentComplete", id, summary: result.summary })
    return result.summary
  } catch (error) {
    const message = errorMessage(error)
    shared.lock.emit(id, { _tag: "SubagentComplete", id, summary: `sub-agent failed: ${message}` })
    throw new Error(`sub-agent failed: ${message}`)
  } finally {
    shared.lock.release(id)
    parent.usage.addTotals(usage)
  }
}

