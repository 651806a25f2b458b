import type { Model, TokenUsage } from "../providers/model.ts"
import { costUsd } from "../providers/prices.ts"
import type { RunUsage } from "./events.ts"
import type { Budget } from "./budget.ts"

/** Token and cost totals of one run (sub-agents' totals are added to their parent's). */
export class UsageTotals {
  inputTokens = 0
  outputTokens = 0
  cacheReadTokens = 0
  cacheWriteTokens = 0
  /** Null as soon as one response came from a model without a known price. */
  costUsd: number | null = 0
  contextTokens = 0

  /** Totals of runs on `model`; every response added is priced as that model's. */
  constructor(
    private readonly model: Pick<Model, "provider" | "id" | "contextWindow">,
    /** The run's budget, told of every response's cost as it is added (sub-agents share it). */
    private readonly budget?: Budget,
  ) {}

  /** One response (or the part of one a failure left): also the latest context size. */
  add(reported: TokenUsage): void {
    this.addSpent(reported)
    const usage = counted(reported)
    this.contextTokens = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens
  }

  /** A response that is not part of the conversation (a compaction summary): counted and priced, context unchanged. */
  addSpent(reported: TokenUsage): void {
    const usage = counted(reported)
    // No counts at all is not $0: the cost of this response, and so of the run, is unknown.
    const cost = reported.unreported ? null : costUsd(this.model.provider, this.model.id, usage)
    if (reported.unreported) this.budget?.unknown(`a response of ${this.model.provider}/${this.model.id} reported no token usage`)
    else this.budget?.add(cost)
    this.sum(usage, cost)
  }

  /** A sub-agent's totals, priced already. */
  addTotals(other: UsageTotals): void {
    this.sum(other, other.costUsd)
  }

  private sum(counts: TokenUsage, cost: number | null): void {
    this.inputTokens += counts.inputTokens
    this.outputTokens += counts.outputTokens
    this.cacheReadTokens += counts.cacheReadTokens
    this.cacheWriteTokens += counts.cacheWriteTokens
    this.costUsd = cost === null || this.costUsd === null ? null : this.costUsd + cost
  }

  snapshot(): RunUsage {
    return {
      contextTokens: this.contextTokens,
      contextWindow: this.model.contextWindow,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      cacheReadTokens: this.cacheReadTokens,
      cacheWriteTokens: this.cacheWriteTokens,
      costUsd: this.costUsd === null ? null : Math.round(this.costUsd * 1e6) / 1e6,
    }
  }
}

/**
 * The counts as they are added up: a provider's count that is not a whole number of tokens at
 * least 0 (negative, NaN, a string, null) counts as 0, so it can neither lower the run's cost
 * under --max-budget-usd nor turn the totals into nonsense.
 */
function counted(usage: TokenUsage): TokenUsage {
  const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0)
  return {
    inputTokens: count(usage.inputTokens),
    outputTokens: count(usage.outputTokens),
    cacheReadTokens: count(usage.cacheReadTokens),
    cacheWriteTokens: count(usage.cacheWriteTokens),
  }
}
