/**
 * The one price table: USD per million tokens and context window per model. A model that is not
 * here costs `null`, never a guess; add a row when a price is published.
 */
import type { TokenUsage } from "./model.ts"

interface ModelInfo {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  contextWindow: number
  /** Largest max_tokens the model accepts (Anthropic requests need one). */
  maxOutput?: number
  /** False for a model that takes no image input; every other model here takes images. */
  vision?: false
}

/** Anthropic: cacheWrite is the 5-minute ephemeral cache write price. */
const anthropic: Record<string, ModelInfo> = {
  "claude-opus-4-5": { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, contextWindow: 200_000, maxOutput: 64_000 },
  "claude-opus-4-1": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75, contextWindow: 200_000, maxOutput: 32_000 },
  "claude-opus-4": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75, contextWindow: 200_000, maxOutput: 32_000 },
  "claude-sonnet-4-5": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, contextWindow: 200_000, maxOutput: 64_000 },
  "claude-sonnet-4": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, contextWindow: 200_000, maxOutput: 64_000 },
  "claude-3-7-sonnet": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, contextWindow: 200_000, maxOutput: 64_000 },
  "claude-haiku-4-5": { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, contextWindow: 200_000, maxOutput: 64_000 },
  "claude-3-5-haiku": { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1, contextWindow: 200_000, maxOutput: 8_192, vision: false },
}

/** OpenAI bills no cache writes: a written token costs the plain input price. */
const openai: Record<string, ModelInfo> = {
  "gpt-5.2": { input: 1.75, output: 14, cacheRead: 0.175, cacheWrite: 1.75, contextWindow: 400_000 },
  "gpt-5.1": { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25, contextWindow: 400_000 },
  "gpt-5.1-codex": { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25, contextWindow: 400_000 },
  "gpt-5.1-codex-mini": { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25, contextWindow: 400_000 },
  "gpt-5": { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25, contextWindow: 400_000 },
  "gpt-5-codex": { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25, contextWindow: 400_000 },
  "gpt-5-mini": { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25, contextWindow: 400_000 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0.05, contextWindow: 400_000 },
  "gpt-4.1": { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2, contextWindow: 1_047_576 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0.4, contextWindow: 1_047_576 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0.1, contextWindow: 1_047_576 },
  "gpt-4o": { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 2.5, contextWindow: 128_000 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15, contextWindow: 128_000 },
  o3: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2, contextWindow: 200_000 },
  "o4-mini": { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 1.1, contextWindow: 200_000 },
}

/** openai-compatible endpoints (local servers, routers) have no prices clanka can know. */
const tables: Record<string, Record<string, ModelInfo>> = { anthropic, openai }

/** Strips dated snapshots and aliases: `claude-sonnet-4-5-20250929`, `-latest`, `claude-opus-4-0`. */
export function canonicalModelId(modelId: string): string {
  return modelId
    .replace(/-\d{8}$/, "")
    .replace(/-\d{4}-\d{2}-\d{2}$/, "")
    .replace(/-latest$/, "")
    .replace(/^(claude-(?:opus|sonnet)-4)-0$/, "$1")
}

export function modelInfo(provider: string, modelId: string): ModelInfo | null {
  const table = tables[provider]
  if (!table) return null
  return table[modelId] ?? table[canonicalModelId(modelId)] ?? null
}

/**
 * Whether the model takes images: false only for a model this table knows to take none. A model
 * outside the table is given the benefit of the doubt (its API answers a clear error if not).
 */
export function takesImages(provider: string, modelId: string): boolean {
  return modelInfo(provider, modelId)?.vision !== false
}

export function contextWindow(provider: string, modelId: string): number | null {
  return modelInfo(provider, modelId)?.contextWindow ?? null
}

/** Cost of `usage` in USD, or null when the model's price is not known. */
export function costUsd(provider: string, modelId: string, usage: TokenUsage): number | null {
  const info = modelInfo(provider, modelId)
  if (!info) return null
  return (
    (usage.inputTokens * info.input +
      usage.outputTokens * info.output +
      usage.cacheReadTokens * info.cacheRead +
      usage.cacheWriteTokens * info.cacheWrite) /
    1_000_000
  )
}
