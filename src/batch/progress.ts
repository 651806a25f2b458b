/**
 * A batch's progress on stderr: on a terminal one line redrawn in place (a bar, counts, cost),
 * with failures and retries printed above it; otherwise one plain line per event, which reads
 * well in a log.
 */
import { visible } from "../output/visible.ts"
import type { TaskResult } from "./run-task.ts"

interface Stream {
  write(text: string): unknown
  isTTY?: boolean
  columns?: number
}

export class Progress {
  private done = 0
  private failed = 0
  private running = 0
  private spent = 0
  private unpriced = false
  private readonly started = Date.now()
  private timer: ReturnType<typeof setInterval> | undefined
  private drawn = false
  private closed = false

  constructor(
    private readonly total: number,
    private readonly stream: Stream = process.stderr,
  ) {
    // The elapsed time moves even while nothing ends.
    if (stream.isTTY) {
      this.timer = setInterval(() => this.draw(), 1000)
      this.timer.unref?.()
    }
  }

  note(text: string): void {
    this.say(text)
  }

  skipped(count: number, file: string): void {
    if (count > 0) this.say(`skipping ${count} task${count === 1 ? "" : "s"} already done in ${file}`)
  }

  start(): void {
    this.running++
    this.draw()
  }

  spend(usd: number): void {
    this.spent += usd
    this.draw()
  }

  retry(id: string | number, attempt: number, attempts: number, error: string): void {
    this.say(`task ${label(id)}: ${visible(error)}; attempt ${attempt} of ${attempts}`)
  }

  finish(result: TaskResult, ran = true): void {
    if (ran) this.running--
    this.done++
    if (result.exitCode !== 0) this.failed++
    if (result.costUsd === null) this.unpriced = true
    const what = result.exitCode === 0 ? "done" : `exit ${result.exitCode}: ${visible(result.error ?? "failed")}`
    const figures = `${usd(result.costUsd)}, ${result.turns} turn${result.turns === 1 ? "" : "s"}, ${seconds(result.durationMs)}`
    if (!this.stream.isTTY) this.say(`[${this.done}/${this.total}] task ${label(result.id)}: ${what} (${figures})`)
    else if (result.exitCode !== 0) this.say(`task ${label(result.id)}: ${what}`)
    else this.draw()
  }

  /** The closing line. */
  end(interrupted: boolean): void {
    if (this.timer) clearInterval(this.timer)
    this.clear()
    this.closed = true
    const succeeded = this.done - this.failed
    const left = this.total - this.done
    this.say(
      `${interrupted ? "interrupted: " : ""}${succeeded} of ${this.total} task${this.total === 1 ? "" : "s"} succeeded, ${this.failed} failed${left > 0 ? `, ${left} not run` : ""}; ${this.cost()} in ${seconds(Date.now() - this.started)}`,
    )
  }

  private cost(): string {
    return `$${this.spent.toFixed(4)}${this.unpriced ? " (and models without a price)" : ""}`
  }

  private say(text: string): void {
    this.clear()
    this.stream.write(`clanka batch: ${text}\n`)
    this.draw()
  }

  private clear(): void {
    if (this.drawn) this.stream.write("\r\x1b[K")
    this.drawn = false
  }

  private draw(): void {
    if (!this.stream.isTTY || this.closed) return
    const width = 20
    const filled = Math.round((this.done / Math.max(1, this.total)) * width)
    const bar = "█".repeat(filled) + "░".repeat(width - filled)
    const line = `${bar} ${this.done}/${this.total} · ${this.running} running · ${this.failed} failed · ${this.cost()} · ${seconds(Date.now() - this.started)}`
    // Cut to the terminal's width, so that the line never wraps (a terminal of unknown width: 100).
    this.stream.write(`\r\x1b[K${line.slice(0, Math.max(20, (this.stream.columns || 100) - 1))}`)
    this.drawn = true
  }
}

function label(id: string | number): string {
  return typeof id === "number" ? String(id) : JSON.stringify(id)
}

function usd(value: number | null): string {
  return value === null ? "cost unknown" : `$${value.toFixed(4)}`
}

function seconds(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
}
