/**
 * --max-budget-usd: what a run has spent so far, its sub-agents included (every response is
 * counted as it arrives, also while a sub-agent still runs), and the check the loop makes after
 * each script: once the spending reaches the budget, no further script or model turn starts.
 */
export class Budget {
  spentUsd = 0
  /** Why the spending cannot be known any more (a response without token counts). */
  private unknownBecause: string | undefined
  constructor(readonly limitUsd: number) {}

  add(costUsd: number | null): void {
    // A response without a price cannot be counted; run refuses a budget for such models.
    if (costUsd !== null) this.spentUsd += costUsd
  }

  /** A response whose cost cannot be known: the budget can no longer be enforced, so the run stops. */
  unknown(why: string): void {
    this.unknownBecause ??= why
  }

  /** Why the run must stop, once the budget is spent (the run then ends with exit 1). */
  exceeded(): string | undefined {
    if (this.unknownBecause !== undefined)
      return `stopped: ${this.unknownBecause}, so the run's cost is unknown and --max-budget-usd cannot be enforced`
    if (this.spentUsd < this.limitUsd) return undefined
    return `stopped: the run has cost $${this.spentUsd.toFixed(4)}, which reaches the budget of $${this.limitUsd} (--max-budget-usd)`
  }
}
