/**
 * The live copy of a running script's output (ScriptOutputDelta events). It spends the same
 * budget as the model's copy (OutputCap): past it one marker line says the rest is not streamed,
 * so a script printing gigabytes cannot flood the event stream. Text is cut at a UTF-8 byte count
 * without splitting a surrogate pair, and lone surrogates become U+FFFD as in ScriptOutput.
 */
export const LIVE_OUTPUT_STOPPED = "[… live output stops here (over the output budget); ScriptOutput has the capped text]\n"

export class LiveOutput {
  private bytes = 0
  private stopped = false

  constructor(private readonly limitBytes: number) {}

  /** What of `text` goes out as a delta: all of it, the part within budget (+ marker), or "". */
  take(text: string): string {
    if (this.stopped || !text) return ""
    const size = Buffer.byteLength(text, "utf8")
    if (this.bytes + size <= this.limitBytes) {
      this.bytes += size
      return text.toWellFormed()
    }
    this.stopped = true
    let fit = prefixWithin(text, this.limitBytes - this.bytes)
    this.bytes = this.limitBytes
    if (fit && !fit.endsWith("\n")) fit += "\n"
    return fit.toWellFormed() + LIVE_OUTPUT_STOPPED
  }
}

/** The longest prefix of `text` of at most `bytes` UTF-8 bytes, not ending inside a surrogate pair. */
function prefixWithin(text: string, bytes: number): string {
  let used = 0
  let end = 0
  for (const char of text) {
    const size = Buffer.byteLength(char, "utf8")
    if (used + size > bytes) break
    used += size
    end += char.length
  }
  return text.slice(0, end)
}
