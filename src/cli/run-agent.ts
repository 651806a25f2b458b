/**
 * `clanka run` once its executor is starting: the session, the agent and its events, in task mode,
 * from NDJSON input, or as a conversation on a terminal. Loaded only after the executor's process
 * exists (run.ts), so that its start and this module's overlap.
 */
import type { Agent, AgentOptions } from "../agent/agent.ts"
import { createAgent } from "../agent/agent.ts"
import { loadUserContext } from "../agent/user-context.ts"
import type { AgentEvent } from "../agent/events.ts"
import { ExitCode } from "../errors.ts"
import type { Executor } from "../contract.ts"
import { visible } from "../output/visible.ts"
import { createFormatter } from "../output/format.ts"
import type { OutputFormat } from "../output/choose.ts"
import type { ImagePart, Model } from "../providers/model.ts"
import { conversationHelp } from "./help.ts"
import { consumeEvents } from "./consume-events.ts"
import { catchInterrupts, type Interrupt } from "./interrupt.ts"
import { openSession, type sessionSource } from "./session-flags.ts"
import { slashCommand } from "./slash-commands.ts"
import { traceAgent } from "../telemetry/index.ts"
import { driveFromInput } from "./ndjson-input.ts"
import { stderr, stdout } from "./stdio.ts"
import { useStreams } from "./streams.ts"
import type { RunArgs } from "./run.ts"

/** What run.ts settled before the executor started, and the executor itself. */
export interface Started {
  executor: Executor
  /** Several --ssh hosts: the first is the agent's executor, the others its sub-agents'. */
  hosts?: { name: string; executor: Executor }[]
  source: ReturnType<typeof sessionSource>
  model: Model
  subagentModel: Model
  /** The model as the user named it, for the session's header. */
  spec: string
  images?: ImagePart[]
  /** Task mode's prompt; none in a conversation or with --input ndjson. */
  prompt?: string
  interactive: boolean
  executorKind: "ssh" | "command" | "local"
  host?: string
  limits: Pick<AgentOptions, "maxTurns" | "turnTimeoutMs" | "jsonSchema" | "maxBudgetUsd" | "compactAt" | "maxDepth">
}

export async function driveAgent(args: RunArgs, asked: OutputFormat | undefined, started: Started): Promise<number> {
  const format = asked ?? (stdout.isTTY ? "pretty" : "text")
  const { executor, hosts, source, model, subagentModel, spec, images, prompt, interactive, executorKind, host, limits } = started
  let session: Awaited<ReturnType<typeof openSession>> | undefined
  const interrupt = catchInterrupts(stdout)
  try {
    session = await openSession(args, source, { model: spec, ...(args["subagent-model"] ? { subagentModel: args["subagent-model"] } : {}) })
    const user = await loadUserContext()
    for (const line of user?.warnings ?? []) stderr.write(`clanka: ${visible(line)}\n`)
    const hooks = args.hooks && (await import("../agent/hooks.ts")).createHooks(args.hooks.config, { cwd: args.hooks.directory })
    const agent = await traceAgent(createAgent, {
      ...(user ? { user } : {}),
      ...(hooks ? { hooks } : {}),
      ...(session.recorder ? { session: session.recorder } : {}),
      ...(session.history ? { history: session.history } : {}),
      resumedFrom: session.resumedFrom,
      executor,
      ...(hosts ? { hosts } : {}),
      model,
      subagentModel,
      conversation: interactive,
      ...(args.system === undefined ? {} : { system: args.system }),
      ...limits,
    }, { executorKind, ...(host ? { host } : {}) })
    const print = createFormatter(format, { stdout, stderr })
    // Task mode: events until AgentFinished or AgentError (an interrupted run ends with one too).
    if (prompt !== undefined) return await consumeEvents(agent.send(prompt, { signal: interrupt.signal, ...(images ? { images } : {}) }), print, interrupt, executor)
    if (args.input) return await driveFromInput(agent, print, interrupt, { out: stdout, ...(images ? { images } : {}) })
    return await converse(agent, print, model, executor, interrupt, images)
  } finally {
    // What the scripts started dies with the executor, also when a signal stopped the run.
    await Promise.all((hosts?.map((host) => host.executor) ?? [executor]).map((each) => each.close()))
    session?.recorder?.close()
    interrupt.dispose()
  }
}



/**
 * Conversation mode on a terminal: each line is a prompt; lines typed while the agent works
 * steer it. Ctrl-C stops the running turn, or leaves when idle; so do Ctrl-D and /exit. A
 * `/word` line is a command (slash-commands.ts): one that does not exist is said so, never sent.
 * A signal from outside stops the turn and leaves with exit 130.
 */
async function converse(
  agent: Agent,
  print: (event: AgentEvent) => void,
  model: Model,
  executor: Executor,
  interrupt: Interrupt,
  /** --image: shown with the first prompt typed. */
  images?: ImagePart[],
): Promise<number> {
  const { createInterface } = await import("node:readline")
  // readline needs Node's streams; a conversation is on a terminal, where their cost is not felt.
  useStreams()
  const caps = await executor.capabilities()
  process.stderr.write(`clanka · ${model.provider}/${model.id} · ${visible(caps.directory)}\nType a request; /help lists the commands; Ctrl-C stops a turn, Ctrl-D leaves.\n`)
  const rl = createInterface({ input: process.stdin, output: process.stderr, prompt: "› " })
  let current: AbortController | undefined
  let turn: Promise<void> = Promise.resolve()
  let closed = false
  let last: number = ExitCode.ok
  return await new Promise<number>((resolve) => {
    const start = (line: string) => {
      current = new AbortController()
      const signal = current.signal
      const attached = images
      images = undefined
      turn = consumeEvents(agent.send(line, { signal, ...(attached ? { images: attached } : {}) }), print, interrupt).then((code) => {
        last = code === ExitCode.interrupted ? ExitCode.ok : code
        current = undefined
        if (!closed) rl.prompt()
      })
    }
    // Between turns the prompt comes back at once; during one, the turn's end brings it.
    const say = (text: string) => {
      process.stderr.write(text)
      if (!current) rl.prompt()
    }
    rl.on("line", (input) => {
      const line = input.trim()
      const slash = slashCommand(line)
      if (slash && "unknown" in slash) return say(`clanka: unknown command ${slash.unknown}; /help lists the commands\n`)
      if (slash?.command === "exit") return rl.close()
      if (slash?.command === "help") return say(conversationHelp(process.stderr.columns || 80))
      if (slash?.command === "compact") {
        if (current) return say("clanka: /compact works between turns: wait for this one to end, or stop it with Ctrl-C\n")
        return void compactNow()
      }
      if (!line) return current ? undefined : rl.prompt()
      if (current) agent.steer(line)
      else start(line)
    })
    // /compact: summarise the older history now, between prompts.
    const compactNow = async () => {
      current = new AbortController()
      const signal = current.signal
      let compacted = false
      turn = (async () => {
        try {
          for await (const event of agent.compact({ signal })) {
            compacted = true
            print(event)
          }
          if (!compacted) process.stderr.write("clanka: nothing to compact yet\n")
        } catch (error) {
          process.stderr.write(`clanka: ${visible(signal.aborted ? "compaction interrupted" : (error as Error).message)}\n`)
        }
        current = undefined
        if (!closed) rl.prompt()
      })()
    }
    rl.on("SIGINT", () => {
      if (current) current.abort()
      else rl.close()
    })
    // Leaving in the middle of a turn stops it, and waits for it to wind down before the
    // executor is closed.
    rl.on("close", () => {
      closed = true
      current?.abort()
      void turn.then(() => resolve(interrupt.signal.aborted ? ExitCode.interrupted : last))
    })
    // SIGTERM, SIGHUP (or a SIGINT not typed on this terminal): stop the turn and leave.
    interrupt.signal.addEventListener("abort", () => rl.close(), { once: true })
    rl.prompt()
  })
}
