import { defineCommand } from "citty"
import { run as spec } from "./commands.ts"
import { readFile } from "node:fs/promises"
import { createAgent, type Agent } from "../agent/agent.ts"
import { loadUserContext } from "../agent/user-context.ts"
import type { AgentEvent } from "../agent/events.ts"
import { schemaProblem } from "../schema/validate.ts"
import { ExitCode, UsageError } from "../errors.ts"
import type { Executor } from "../contract.ts"
import { visible } from "../output/visible.ts"
import { chooseOutputFormat, createFormatter, type OutputFormat } from "../output/format.ts"
import type { ImagePart, Model } from "../providers/model.ts"
import { repeated } from "./argv.ts"
import { modelInfo } from "../providers/prices.ts"
import { secondsFlag } from "./duration.ts"
import { openExecutor, openHosts, projectConfig, sshHosts } from "./executor-flags.ts"
import { conversationHelp } from "./help.ts"
import { consumeEvents } from "./consume-events.ts"
import { chooseModels } from "./model-choice.ts"
import { catchInterrupts, type Interrupt } from "./interrupt.ts"
import { openSession, sessionSource, type SessionFlags } from "./session-flags.ts"
import { slashCommand } from "./slash-commands.ts"
import { traceAgent } from "../telemetry/index.ts"
import { driveFromInput, ndjsonInput } from "./ndjson-input.ts"
import type { HookConfig } from "../agent/hooks.ts"

export default defineCommand({
  ...spec,
  async run({ args }): Promise<number> {
    // Flags beat the config files (clanka.json, the user's config.json).
    const { config, sources, directory } = projectConfig(args)
    // `clanka run fix the bug` is `clanka run "fix the bug"`.
    const words: string[] = args._ ?? []
    const input = ndjsonInput(args.input, words.length > 0 ? words.join(" ") : undefined, args.output ?? (args.json ? "ndjson" : undefined))
    const format = input ? "ndjson" : chooseOutputFormat(args.output ?? (args.json ? undefined : config.output), args.json)
    return await runAgent(
      {
        ...args,
        prompt: words.length > 0 ? words.join(" ") : undefined,
        "subagent-model": args["subagent-model"] ?? config.subagentModel,
        "max-turns": args["max-turns"] ?? (config.maxTurns === undefined ? undefined : String(config.maxTurns)),
        "turn-timeout": args["turn-timeout"] ?? (config.turnTimeout === undefined ? undefined : String(config.turnTimeout)),
        system: args.system ?? config.system,
        input,
        ...(config.hooks ? { hooks: { config: config.hooks, directory } } : {}),
      },
      format,
      {
        ...(config.model === undefined ? {} : { model: config.model, modelFile: sources.model }),
        ...(args["subagent-model"] === undefined && config.subagentModel !== undefined ? { subagentModelFile: sources.subagentModel } : {}),
      },
    )
  },
})

/** The session flags name the model and the executor too: a resumed session may set them. */
interface RunArgs extends SessionFlags {
  prompt?: string
  "json-schema"?: string
  "max-turns"?: string
  "turn-timeout"?: string
  system?: string
  "max-budget-usd"?: string
  "compact-at"?: string
  "max-depth"?: string
  image?: string
  /** --input ndjson: the prompts come from stdin lines (ndjson-input.ts). */
  input?: boolean
  /** The config's hooks (user's and trusted project's) and the directory they run in. */
  hooks?: { config: HookConfig; directory: string }
}

/** The config files' model, and the files a model or sub-agent model in use came from. */
interface FileModels {
  model?: string
  modelFile?: string
  subagentModelFile?: string
}

async function runAgent(args: RunArgs, format: OutputFormat, files: FileModels = {}): Promise<number> {
  // Flags first: a bad value is refused whatever the environment holds.
  const maxTurns = positiveWholeNumber("--max-turns", args["max-turns"])
  const turnTimeoutMs = secondsFlag("--turn-timeout", args["turn-timeout"])
  const compactAt = positiveWholeNumber("--compact-at", args["compact-at"])
  const maxDepth = wholeNumber("--max-depth", args["max-depth"], 0)
  // A resumed session brings its model and executor unless the flags name others.
  const source = sessionSource(args)
  const { model, subagentModel, spec } = await chooseModels({
    flag: args.model,
    configModel: files.model,
    configFile: files.modelFile,
    subagent: args["subagent-model"],
    subagentFile: files.subagentModelFile,
  })
  const maxBudgetUsd = budgetFlag(args["max-budget-usd"], [model, subagentModel])
  const jsonSchema = args["json-schema"] === undefined ? undefined : await readSchema(args["json-schema"])
  // Checked against the model before anything starts: a file it cannot take is a usage error.
  const images = args.image === undefined ? undefined : await (await import("../images/prompt.ts")).loadPromptImages(repeated(args.image), model)

  const interactive = !args.input && args.prompt === undefined && Boolean(process.stdin.isTTY)
  const prompt = interactive || args.input ? undefined : await readPrompt(args.prompt)

  // The user's AGENTS.md and skills, read here on the agent's side while the executor starts.
  const userReady = loadUserContext()
  // Several --ssh hosts: the first is the agent's executor, the others its sub-agents' (delegate).
  const sshList = sshHosts(args)
  const hosts = sshList.length > 1 ? await openHosts(args, sshList, { searchLikely: true }) : undefined
  // A local executor is returned while it starts: the first model request need not wait for it.
  const executor = hosts ? hosts[0]!.executor : await openExecutor(args, { searchLikely: true, defer: true })
  let session: Awaited<ReturnType<typeof openSession>> | undefined
  const interrupt = catchInterrupts()
  try {
    session = await openSession(args, source, { model: spec, ...(args["subagent-model"] ? { subagentModel: args["subagent-model"] } : {}) })
    const user = await userReady
    for (const line of user?.warnings ?? []) process.stderr.write(`clanka: ${visible(line)}\n`)
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
      ...(maxTurns === undefined ? {} : { maxTurns }),
      ...(turnTimeoutMs === undefined ? {} : { turnTimeoutMs }),
      ...(jsonSchema === undefined ? {} : { jsonSchema }),
      ...(maxBudgetUsd === undefined ? {} : { maxBudgetUsd }),
      ...(compactAt === undefined ? {} : { compactAt }),
      ...(maxDepth === undefined ? {} : { maxDepth }),
    }, { executorKind: sshList.length > 0 ? "ssh" : args.executor !== undefined ? "command" : "local", ...(sshList[0] ? { host: sshList[0].name } : {}) })
    const print = createFormatter(format, { stdout: process.stdout, stderr: process.stderr })
    // Task mode: events until AgentFinished or AgentError (an interrupted run ends with one too).
    if (prompt !== undefined) return await consumeEvents(agent.send(prompt, { signal: interrupt.signal, ...(images ? { images } : {}) }), print, interrupt, executor)
    if (args.input) return await driveFromInput(agent, print, interrupt, images ? { images } : {})
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
  const caps = await executor.capabilities()
  process.stderr.write(`clanka · ${model.provider}/${model.id} · ${caps.directory}\nType a request; /help lists the commands; Ctrl-C stops a turn, Ctrl-D leaves.\n`)
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

async function readPrompt(prompt: string | undefined): Promise<string> {
  const text = prompt === undefined || prompt === "-" ? await new Response(Bun.stdin.stream()).text() : prompt
  if (!text.trim()) throw new UsageError("empty prompt: pass the task as an argument or on stdin")
  return text.trim()
}

/**
 * Loads and checks the --json-schema file before any model call: a schema the validator would
 * misread (not an object, a pattern that does not compile, a $ref to nowhere) is refused with
 * exit 2 rather than failing the run after model turns were spent.
 */
async function readSchema(file: string): Promise<unknown> {
  const refuse = (problem: string) => new UsageError(`--json-schema ${file}: ${problem}`)
  let text: string
  try {
    text = await readFile(file, "utf8")
  } catch (error) {
    throw refuse(`cannot read it: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  let schema: unknown
  try {
    schema = JSON.parse(text)
  } catch (error) {
    throw refuse(`not JSON: ${(error as Error).message}`)
  }
  const problem = schemaProblem(schema)
  if (problem) throw refuse(problem)
  return schema
}

export function positiveWholeNumber(flag: string, value: string | undefined): number | undefined {
  return wholeNumber(flag, value, 1)
}

export function wholeNumber(flag: string, value: string | undefined, min: 0 | 1): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (value.trim() === "" || !Number.isSafeInteger(n) || n < min) throw new UsageError(`${flag} takes a ${min === 1 ? "positive " : ""}whole number, got "${value}"`)
  return n
}

/** A budget that cannot be enforced (a model without a price) is refused, not ignored. */
export function budgetFlag(value: string | undefined, models: Model[]): number | undefined {
  if (value === undefined) return undefined
  const usd = Number(value)
  if (value.trim() === "" || !Number.isFinite(usd) || usd <= 0) throw new UsageError(`--max-budget-usd takes a positive amount in US dollars, got "${value}"`)
  for (const model of models) {
    if (modelInfo(model.provider, model.id) === null) {
      throw new UsageError(
        `--max-budget-usd cannot be enforced: ${model.provider}/${model.id} has no price in clanka's table (its cost is unknown); drop the flag or choose a priced model`,
      )
    }
  }
  return usd
}
