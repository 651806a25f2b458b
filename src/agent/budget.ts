/**
 * --max-budget-usd: what a run has spent so far, its sub-agents included (every response is
 * counted as it arrives, also while a sub-agent still runs), and the check the loop makes after
 * each script: once the spending reaches the budget, no further script or model turn starts.
 */
import { ClankaError } from "../errors.ts"

export class Budget {
  spentUsd = 0
  constructor(readonly limitUsd: number) {}

  add(costUsd: number | null): void {
    // A response without a price cannot be counted; run refuses a budget for such models.
    if (costUsd !== null) this.spentUsd += costUsd
  }

  /** Throws when the budget is spent: the run ends with exit 1. */
  check(): void {
    if (this.spentUsd < this.limitUsd) return
    throw new ClankaError(
      `stopped: the run has cost $${this.spentUsd.toFixed(4)}, which reaches the budget of $${this.limitUsd} (--max-budget-usd)`,
    )
  }
}
