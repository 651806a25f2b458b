/**
 * Caps text that goes back to a model: keeps the head and the tail, and replaces the middle with
 * a marker saying how many lines and bytes were dropped. Memory stays bounded by the limit however
 * much is pushed, so a script printing gigabytes cannot exhaust the agent.
 */
export class OutputCap {
  private head = ""
  private headBytes = 0
  private readonly tail: string[] = []
  private tailBytes = 0
  private droppedBytes = 0
  private droppedLines = 0
  private readonly headLimit: number
  private readonly tailLimit: number

  constructor(readonly limitBytes = 64 * 1024) {
    this.headLimit = Math.floor(limitBytes / 2)
    this.tailLimit = limitBytes - this.headLimit
  }

  get truncated(): boolean {
    return this.droppedBytes > 0
  }

  push(text: string): void {
    if (!text) return
    if (this.droppedBytes === 0 && this.tail.length === 0 && this.headBytes < this.headLimit) {
      const room = this.headLimit - this.headBytes
      const bytes = byteLength(text)
      if (bytes <= room) {
        this.head += text
        this.headBytes += bytes
        return
      }
      // Fill the head up to the limit, in bytes (a character takes up to three).
      const fit = text.slice(0, charsWithin(text, room))
      this.head += fit
      this.headBytes += byteLength(fit)
      text = text.slice(fit.length)
    }
    this.tail.push(text)
    this.tailBytes += byteLength(text)
    this.shrinkTail()
  }

  private shrinkTail(): void {
    while (this.tailBytes > this.tailLimit && this.tail.length > 0) {
      const first = this.tail[0]!
      const excess = this.tailBytes - this.tailLimit
      const firstBytes = byteLength(first)
      const dropped = firstBytes <= excess ? first : first.slice(0, pairBoundary(first, excess, true))
      if (dropped.length === first.length) this.tail.shift()
      else this.tail[0] = first.slice(dropped.length)
      this.drop(dropped)
      this.tailBytes -= byteLength(dropped)
    }
  }

  private drop(text: string): void {
    this.droppedBytes += byteLength(text)
    this.droppedLines += countLines(text)
  }

  /**
   * The capped text. When anything was dropped, the cut is moved to line boundaries. Lone UTF-16
   * surrogates (a script printing half an emoji) become U+FFFD: APIs reject them in JSON, and
   * so does `jq`.
   */
  toString(): string {
    return this.cut().toWellFormed()
  }

  private cut(): string {
    const tail = this.tail.join("")
    if (this.droppedBytes === 0) return this.head + tail
    let head = this.head
    let rest = tail
    let bytes = this.droppedBytes
    let lines = this.droppedLines
    const headCut = head.lastIndexOf("\n")
    if (headCut >= 0 && headCut < head.length - 1) {
      const cut = head.slice(headCut + 1)
      bytes += byteLength(cut)
      head = head.slice(0, headCut + 1)
    } else if (headCut < 0) {
      head += "\n"
    }
    const tailCut = rest.indexOf("\n")
    if (tailCut >= 0 && tailCut < rest.length - 1) {
      const cut = rest.slice(0, tailCut + 1)
      bytes += byteLength(cut)
      lines += 1
      rest = rest.slice(tailCut + 1)
    }
    return `${head}[… ${lines} lines (${bytes} bytes) of output dropped …]\n${rest}`
  }
}

/** `index`, moved so that slicing there does not split a surrogate pair (forward when `after`). */
function pairBoundary(text: string, index: number, after = false): number {
  const code = text.charCodeAt(index - 1)
  const splitsPair = code >= 0xd800 && code <= 0xdbff && index < text.length
  return splitsPair ? index + (after ? 1 : -1) : index
}

/** How many of `text`'s leading UTF-16 units fit in `bytes` bytes of UTF-8, not splitting a pair. */
function charsWithin(text: string, bytes: number): number {
  let used = 0
  let i = 0
  while (i < text.length) {
    const code = text.charCodeAt(i)
    const pair = code >= 0xd800 && code <= 0xdbff && i + 1 < text.length
    const size = pair ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3
    if (used + size > bytes) break
    used += size
    i += pair ? 2 : 1
  }
  return i
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8")
}

function countLines(text: string): number {
  let count = 0
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) count++
  return count
}
