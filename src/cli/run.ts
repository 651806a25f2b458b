import { defineCommand } from "./define-command.ts"
import { run as spec } from "./commands.ts"
import { readFile } from "node:fs/promises"
import { UsageError } from "../errors.ts"
import { askedOutputFormat, type OutputFormat } from "../output/choose.ts"
import type { Model } from "../providers/model.ts"
import { repeated } from "./argv.ts"
import { modelInfo } from "../providers/prices.ts"
import { secondsFlag } from "./duration.ts"
import { dollarsFlag } from "./dollars.ts"
import { openExecutor, openHosts, projectConfig, sshHosts } from "./executor-flags.ts"
import { chooseModels } from "./model-choice.ts"
import { sessionSource, type SessionFlags } from "./session-flags.ts"
import { ndjsonInput } from "./ndjson-input.ts"
import type { HookConfig } from "../agent/hooks.ts"
import { StartingExecutor } from "../executor/starting.ts"

export default defineCommand({
  ...spec,
  async run({ args }): Promise<number> {
    // Flags beat the config files (clanka.json, the user's config.json).
    const { config, sources, directory } = projectConfig(args)
    // `clanka run fix the bug` is `clanka run "fix the bug"`.
    const words: string[] = args._ ?? []
    // `git diff | clanka run - review this` would send the model "- review this" and drop stdin.
    if (words[0] === "-" && words.length > 1) {
      throw new UsageError(`"-" reads the whole prompt from stdin; give no other words with it (put "${words.slice(1).join(" ")}" into stdin too)`)
    }
    const input = ndjsonInput(args.input, words.length > 0 ? words.join(" ") : undefined, args.output ?? (args.json ? "ndjson" : undefined))
    // Without --output, stdout decides once the executor has started (run-agent.ts).
    const format = input ? "ndjson" : askedOutputFormat(args.output ?? (args.json ? undefined : config.output), args.json)
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
export interface RunArgs extends SessionFlags {
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

async function runAgent(args: RunArgs, format: OutputFormat | undefined, files: FileModels = {}): Promise<number> {
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

  // Several --ssh hosts: the first is the agent's executor, the others its sub-agents' (delegate).
  const sshList = sshHosts(args)
  const hosts = sshList.length > 1 ? await openHosts(args, sshList, { searchLikely: true }) : undefined
  // A local executor is returned while it starts: the first model request need not wait for it.
  const executor = hosts ? hosts[0]!.executor : await openExecutor(args, { searchLikely: true, defer: true })
  // Once the executor's process exists: from here on this process's work (the agent's modules,
  // the first model request) overlaps its start. Output goes straight to the descriptors (stdio.ts).
  if (executor instanceof StartingExecutor) await executor.spawned
  const { driveAgent } = await import("./run-agent.ts")
  return driveAgent(args, format, {
    executor,
    ...(hosts ? { hosts } : {}),
    source,
    model,
    subagentModel,
    spec,
    ...(images ? { images } : {}),
    ...(prompt === undefined ? {} : { prompt }),
    interactive,
    executorKind: sshList.length > 0 ? "ssh" : args.executor !== undefined ? "command" : "local",
    ...(sshList[0] ? { host: sshList[0].name } : {}),
    limits: {
      ...(maxTurns === undefined ? {} : { maxTurns }),
      ...(turnTimeoutMs === undefined ? {} : { turnTimeoutMs }),
      ...(jsonSchema === undefined ? {} : { jsonSchema }),
      ...(maxBudgetUsd === undefined ? {} : { maxBudgetUsd }),
      ...(compactAt === undefined ? {} : { compactAt }),
      ...(maxDepth === undefined ? {} : { maxDepth }),
    },
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
  const { schemaProblem } = await import("../schema/validate.ts")
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
  const usd = dollarsFlag("--max-budget-usd", value)
  if (usd === undefined) return undefined
  for (const model of models) {
    if (modelInfo(model.provider, model.id) === null) {
      throw new UsageError(
        `--max-budget-usd cannot be enforced: ${model.provider}/${model.id} has no price in clanka's table (its cost is unknown); drop the flag or choose a priced model`,
      )
    }
  }
  return usd
}
