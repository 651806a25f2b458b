import { closesBlock, opensBlock, type AgentEvent } from "./events.ts"

/**
 * Orders the events of several agents running at once (a parent and its sub-agents) into one
 * stream. An agent that opens a Reasoning or Script block owns the output until it closes it;
 * events of other agents meanwhile are buffered and released in their original order.
 */
export class OutputLock {
  private owner: string | null = null
  private pending: Array<{ agent: string; event: AgentEvent; block: { _tag: string } }> = []

  constructor(private readonly write: (event: AgentEvent) => void) {}

  /**
   * `block` is the event whose tag decides block boundaries (for a wrapped SubagentPart, the
   * inner part); defaults to the event itself.
   */
  emit(agent: string, event: AgentEvent, block: { _tag: string } = event): void {
    const waiting = this.pending.some((item) => item.agent === agent)
    if (waiting || (this.owner !== null && this.owner !== agent)) {
      this.pending.push({ agent, event, block })
      return
    }
    this.pass(agent, event, block)
    if (this.owner === null && this.pending.length) this.drain()
  }

  /** An agent that stops (finished, failed, cancelled) must not keep the lock. */
  release(agent: string): void {
    if (this.owner === agent) {
      this.owner = null
      this.drain()
    }
  }

  /** Writes every buffered event: the run is over and nothing may be lost. */
  flush(): void {
    this.owner = null
    for (const item of this.pending.splice(0)) this.write(item.event)
  }

  private pass(agent: string, event: AgentEvent, block: { _tag: string }): void {
    if (opensBlock(block)) this.owner = agent
    else if (closesBlock(block) && this.owner === agent) this.owner = null
    this.write(event)
  }

  private drain(): void {
    // Release buffered events in arrival order; an agent whose event stays buffered keeps all
    // its later events buffered too.
    let progressed = true
    while (progressed && this.pending.length) {
      progressed = false
      const blocked = new Set<string>()
      for (let i = 0; i < this.pending.length; i++) {
        const item = this.pending[i]!
        if (blocked.has(item.agent)) continue
        if (this.owner !== null && this.owner !== item.agent) {
          blocked.add(item.agent)
          continue
        }
        this.pending.splice(i, 1)
        i--
        this.pass(item.agent, item.event, item.block)
        progressed = true
      }
    }
  }
}
