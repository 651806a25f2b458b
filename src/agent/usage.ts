import type { TokenUsage } from "../providers/model.ts"
import { costUsd } from "../providers/prices.ts"
import type { RunUsage } from "./events.ts"

/** Token and cost totals of one run (sub-agents' totals are added to their parent's). */
export class UsageTotals {
  inputTokens = 0
  outputTokens = 0
  cacheReadTokens = 0
  cacheWriteTokens = 0
  /** Null as soon as one response came from a model without a known price. */
  costUsd: number | null = 0
  contextTokens = 0

  constructor(private readonly contextWindow: number | null) {}

  add(provider: string, modelId: string, usage: TokenUsage): void {
    this.inputTokens += usage.inputTokens
    this.outputTokens += usage.outputTokens
    this.cacheReadTokens += usage.cacheReadTokens
    this.cacheWriteTokens += usage.cacheWriteTokens
    this.contextTokens = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens
    const cost = costUsd(provider, modelId, usage)
    this.costUsd = cost === null || this.costUsd === null ? null : this.costUsd + cost
  }

  addTotals(other: UsageTotals): void {
    this.inputTokens += other.inputTokens
    this.outputTokens += other.outputTokens
    this.cacheReadTokens += other.cacheReadTokens
    this.cacheWriteTokens += other.cacheWriteTokens
    this.costUsd = other.costUsd === null || this.costUsd === null ? null : this.costUsd + other.costUsd
  }

  snapshot(): RunUsage {
    return {
      contextTokens: this.contextTokens,
      contextWindow: this.contextWindow,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      cacheReadTokens: this.cacheReadTokens,
      cacheWriteTokens: this.cacheWriteTokens,
      costUsd: this.costUsd === null ? null : Math.round(this.costUsd * 1e6) / 1e6,
    }
  }
}
