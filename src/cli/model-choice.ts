import { UsageError } from "../errors.ts"
import type { Model } from "../providers/model.ts"

/** Without --model or CLANKA_MODEL, the provider whose key is set picks the model. */
export function defaultModel(env: Record<string, string | undefined>): string | undefined {
  if (env.ANTHROPIC_API_KEY) return "anthropic/claude-sonnet-4-5"
  if (env.OPENAI_API_KEY) return "openai/gpt-5"
  return undefined
}

/** Where the model specs of a run come from: a flag, else CLANKA_MODEL, else a config file. */
export interface ModelChoice {
  /** --model */
  flag?: string
  /** The config files' model, and the file it came from. */
  configModel?: string
  configFile?: string
  /** The sub-agent model's spec (flag or config), and its file when it came from one. */
  subagent?: string
  subagentFile?: string
}

/**
 * The run's model and sub-agent model: flags, then CLANKA_MODEL, then the config files, then the
 * key that is set. A mistake in a config file names the file and the key, as the files' other
 * mistakes do (a missing API key is not the file's mistake).
 */
export async function chooseModels(choice: ModelChoice): Promise<{ model: Model; subagentModel: Model; spec: string }> {
  const { parseModelSpec, resolveModel } = await import("../providers/resolve.ts")
  const fromFile = !choice.flag && !process.env.CLANKA_MODEL && choice.configModel ? choice.configFile : undefined
  const spec = choice.flag || process.env.CLANKA_MODEL || choice.configModel || defaultModel(process.env)
  if (!spec) {
    throw new UsageError(
      "no model: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or pass --model provider/model (e.g. anthropic/claude-sonnet-4-5) or set CLANKA_MODEL",
    )
  }
  const resolveFrom = (value: string, file: string | undefined, key: string) => {
    if (file) {
      try {
        parseModelSpec(value)
      } catch (error) {
        throw error instanceof UsageError ? new UsageError(`${file}: ${key}: ${error.message}`) : error
      }
    }
    return resolveModel(value)
  }
  const model = resolveFrom(spec, fromFile, "model")
  const subagentModel = choice.subagent ? resolveFrom(choice.subagent, choice.subagentFile, "subagentModel") : model
  return { model, subagentModel, spec }
}
