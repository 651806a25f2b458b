/**
 * `provider/model[:effort]` → Model. Provider modules load their SDK only when a request is
 * streamed, so resolving a model (and `clanka --version`, `clanka exec`) stays cheap.
 */
import { UsageError } from "../errors.ts"
import { createAnthropicModel } from "./anthropic.ts"
import type { Model } from "./model.ts"
import { createOpenAIModel } from "./openai.ts"
import { createOpenAICompatibleModel } from "./openai-compatible.ts"

export type Env = Record<string, string | undefined>

export interface ModelSpec {
  provider: string
  model: string
  effort?: string
}

const providers: Record<string, { efforts: readonly string[]; create(spec: ModelSpec, env: Env): Model }> = {
  anthropic: { efforts: ["low", "medium", "high", "xhigh", "max"], create: createAnthropicModel },
  openai: { efforts: ["none", "minimal", "low", "medium", "high", "xhigh", "max"], create: createOpenAIModel },
  "openai-compatible": {
    efforts: ["none", "minimal", "low", "medium", "high", "xhigh", "max"],
    create: createOpenAICompatibleModel,
  },
}

const knownProviders: readonly string[] = Object.keys(providers)

const form = "provider/model[:effort], e.g. anthropic/claude-sonnet-4-5 or openai/gpt-5.2:high"

/** Checks a spec's form (provider, model, effort) without resolving it. Throws UsageError. */
export function parseModelSpec(spec: string): ModelSpec {
  const slash = spec.indexOf("/")
  if (slash <= 0) throw new UsageError(`invalid model "${spec}": expected ${form}`)
  const provider = spec.slice(0, slash)
  const entry = providers[provider]
  if (!entry)
    throw new UsageError(`unknown model provider "${provider}": use one of ${knownProviders.join(", ")} (as in ${form})`)
  let model = spec.slice(slash + 1)
  let effort: string | undefined
  // The effort is after the last colon; model ids themselves may contain colons (ollama tags).
  const colon = model.lastIndexOf(":")
  if (colon >= 0 && entry.efforts.includes(model.slice(colon + 1))) {
    effort = model.slice(colon + 1)
    model = model.slice(0, colon)
  } else if (colon >= 0 && provider !== "openai-compatible") {
    const given = model.slice(colon + 1)
    if (given !== "")
      throw new UsageError(`unknown effort "${given}" for ${provider}: use one of ${entry.efforts.join(", ")}`)
    throw new UsageError(`invalid model "${spec}": expected ${form}`)
  }
  if (model === "" || /\s/.test(spec)) throw new UsageError(`invalid model "${spec}": expected ${form}`)
  return effort === undefined ? { provider, model } : { provider, model, effort }
}

/** Resolves a model spec against the environment (API keys, base URLs). Throws UsageError. */
export function resolveModel(spec: string, env: Env = process.env): Model {
  const parsed = parseModelSpec(spec)
  return providers[parsed.provider]!.create(parsed, env)
}
