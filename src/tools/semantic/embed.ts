// Embeddings on the agent's side, where the keys are: `--embed-model provider/model` chooses an
// OpenAI or OpenAI-compatible /v1/embeddings endpoint; the executor asks for vectors through the
// `embed` agent service (an AgentCall over the protocol), so a key never enters it.
import { UsageError } from "../../errors.ts"
import { baseUrlFrom } from "../../providers/base-url.ts"

export interface EmbedModel {
  /** `provider/model`, stored with each vector: another model's vectors are not compared. */
  name: string
  provider: "openai" | "openai-compatible"
  model: string
  baseURL: string
  apiKey: string
}

/** What the `embed` service answers: no model means "no embeddings here; rank lexically". */
export interface EmbedAnswer {
  model: string | null
  vectors: number[][]
}

const OPENAI_URL = "https://api.openai.com/v1"
const COMPATIBLE_URL = "http://localhost:11434/v1"

/** `openai/text-embedding-3-small` or `openai-compatible/nomic-embed-text`, checked before anything runs. */
export function parseEmbedModel(spec: string, env: Record<string, string | undefined> = process.env): EmbedModel {
  const slash = spec.indexOf("/")
  const provider = spec.slice(0, slash)
  const model = spec.slice(slash + 1)
  if (slash <= 0 || model === "" || (provider !== "openai" && provider !== "openai-compatible")) {
    throw new UsageError(`--embed-model takes openai/MODEL or openai-compatible/MODEL (e.g. openai/text-embedding-3-small, openai-compatible/nomic-embed-text), got "${spec}"`)
  }
  if (provider === "openai") {
    const apiKey = env.OPENAI_API_KEY
    if (!apiKey) throw new UsageError("OPENAI_API_KEY is not set: export it to use --embed-model openai/…")
    return { name: spec, provider, model, apiKey, baseURL: baseUrlFrom(env, "OPENAI_BASE_URL", OPENAI_URL) ?? OPENAI_URL }
  }
  // Ollama and most local servers want no key; the SDK insists on one.
  return { name: spec, provider, model, apiKey: env.OPENAI_API_KEY || "none", baseURL: baseUrlFrom(env, "OPENAI_BASE_URL", COMPATIBLE_URL) ?? COMPATIBLE_URL }
}

let configured: EmbedModel | undefined
let client: { embeddings: { create(body: object, options?: object): Promise<{ data: Array<{ embedding: number[]; index: number }> }> } } | undefined

/** Sets (or clears) the embedding model this process answers `embed` with. */
export function configureEmbeddings(model: EmbedModel | undefined): void {
  configured = model
  client = undefined
}

export async function embed(texts: readonly string[], signal: AbortSignal): Promise<EmbedAnswer> {
  const model = configured
  if (!model) return { model: null, vectors: [] }
  if (!client) {
    const { OpenAI } = await import("openai")
    client = new OpenAI({ apiKey: model.apiKey, baseURL: model.baseURL, maxRetries: 2 }) as unknown as typeof client
  }
  let response
  try {
    response = await client!.embeddings.create({ model: model.model, input: [...texts], encoding_format: "float" }, { signal })
  } catch (error) {
    throw new Error(`embeddings from ${model.name} at ${model.baseURL} failed: ${(error as Error).message}`)
  }
  const vectors: number[][] = []
  for (const item of response.data) vectors[item.index] = item.embedding
  if (vectors.length !== texts.length || vectors.some((vector) => !Array.isArray(vector))) {
    throw new Error(`embeddings from ${model.name}: asked for ${texts.length} vectors, got ${response.data.length}`)
  }
  return { model: model.name, vectors }
}
