import { visible } from "./visible.ts"

/**
 * The bottom of a terminal while scripts run (pretty output on a TTY): per running script, a line
 * with its elapsed time and the last lines it printed, redrawn in place. Everything else printed
 * goes above it: the formatter erases the region before it writes and draws it again after, when
 * its own output ends at a line start (a half-written line is never overdrawn). The region is
 * drawn only once there is something to say: a script that ends within a second without printing
 * leaves no trace, and the final ScriptOutput replaces the region in the scrollback.
 */

/** Lines of a script's output the region shows. */
const TAIL_LINES = 5
/** Characters of output kept per script for the tail (enough for TAIL_LINES long lines). */
const TAIL_CHARS = 4096
/** How often the elapsed time is brought up to date. */
const TICK_MS = 1000
/** Redraws on new output at most this often. */
const DRAW_MS = 100

interface Running {
  lead: string
  started: number
  tail: string
  printed: boolean
}

export interface LiveTailOptions {
  out: { write(text: string): unknown; columns?: number }
  dim(text: string): string
  now?: () => number
}

export class LiveTail {
  private readonly running = new Map<string, Running>()
  /** Lines of the region now on screen (0: none). */
  private drawn = 0
  private timer: ReturnType<typeof setInterval> | undefined
  private pendingDraw: ReturnType<typeof setTimeout> | undefined
  private lastDraw = 0
  /** Whether the formatter's output ends at a line start: the region may be drawn. */
  private canDraw = true
  private readonly now: () => number

  constructor(private readonly options: LiveTailOptions) {
    this.now = options.now ?? (() => performance.now())
  }

  get active(): boolean {
    return this.running.size > 0
  }

  /** A script of agent `tag` starts running. */
  start(tag: string, lead: string): void {
    this.running.set(tag, { lead, started: this.now(), tail: "", printed: false })
    this.timer ??= unref(setInterval(() => this.draw(), TICK_MS))
  }

  /** It printed `text`: the region is redrawn soon (at most every DRAW_MS). */
  push(tag: string, text: string): void {
    const script = this.running.get(tag)
    if (!script) return
    script.tail = (script.tail + text).slice(-TAIL_CHARS)
    script.printed = true
    if (this.pendingDraw) return
    const wait = this.lastDraw + DRAW_MS - this.now()
    if (wait <= 0) this.draw()
    else this.pendingDraw = unref(setTimeout(() => ((this.pendingDraw = undefined), this.draw()), wait))
  }

  has(tag: string): boolean {
    return this.running.has(tag)
  }

  /** Its script ended; the caller erases the region before printing the result. */
  stop(tag: string): void {
    this.running.delete(tag)
    if (this.running.size === 0) this.dispose()
  }

  /** Removes the region from the screen before other output; `draw` puts it back. */
  erase(): void {
    if (this.drawn === 0) return
    // Up to the region's first line, column 1, then clear to the end of the screen.
    this.options.out.write(`\x1b[${this.drawn}F\x1b[J`)
    this.drawn = 0
  }

  /** After the formatter wrote: whether its output ended at a line start. */
  settle(atLineStart: boolean): void {
    this.canDraw = atLineStart
    if (this.active) this.draw()
  }

  /** Stops the timers (the run ended); the region is left erased. */
  dispose(): void {
    this.erase()
    this.running.clear()
    clearInterval(this.timer)
    clearTimeout(this.pendingDraw)
    this.timer = this.pendingDraw = undefined
  }

  private draw(): void {
    if (!this.canDraw) return
    const lines = this.lines()
    this.erase()
    this.lastDraw = this.now()
    if (lines.length === 0) return
    this.options.out.write(lines.map((line) => `${line}\n`).join(""))
    this.drawn = lines.length
  }

  private lines(): string[] {
    const width = Math.max(20, (this.options.out.columns ?? 80) - 1)
    const lines: string[] = []
    const now = this.now()
    for (const script of this.running.values()) {
      const ms = now - script.started
      if (!script.printed && ms < TICK_MS) continue
      const leadWidth = visibleLength(script.lead)
      lines.push(`${script.lead}${this.options.dim(`  ⋯ running ${Math.floor(ms / 1000)} s`)}`)
      const tail = visible(script.tail).replace(/\n$/, "").split("\n").slice(-TAIL_LINES)
      if (script.printed) for (const line of tail) lines.push(`${script.lead}${this.options.dim(`  ${fit(line, width - leadWidth - 2)}`)}`)
    }
    return lines
  }
}

/**
 * The line cut to `width` columns (the region must not wrap: its height is counted in lines).
 * Tabs become spaces; characters from U+1100 up count two columns, which may overestimate but
 * never wraps.
 */
function fit(line: string, width: number): string {
  const chars = [...line.replaceAll("\t", "  ")]
  const size = (char: string) => (char.codePointAt(0)! >= 0x1100 ? 2 : 1)
  if (chars.reduce((sum, char) => sum + size(char), 0) <= width) return chars.join("")
  let used = 1 // the "…"
  let result = ""
  for (const char of chars) {
    if (used + size(char) > width) break
    used += size(char)
    result += char
  }
  return `${result}…`
}

function visibleLength(text: string): number {
  // biome-ignore lint: the lead may carry colour codes
  return [...text.replace(/\x1b\[[0-9;]*m/g, "")].length
}

function unref<T>(timer: T): T {
  ;(timer as { unref?: () => void }).unref?.()
  return timer
}
