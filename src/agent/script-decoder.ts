import { SCRIPT_FIELD } from "../contract.ts"

/** Finds the start of the script's string value in the raw JSON. */
const SCRIPT_START = new RegExp(`"${SCRIPT_FIELD}"\\s*:\\s*"`)

/**
 * Decodes the `script` string out of the `execute` tool's JSON input while it streams
 * (`{"script":"con` … `sole.log(1)"}`), so ScriptDelta events show the script as the model writes
 * it. The deltas concatenate to exactly the decoded script.
 */
export class ScriptDecoder {
  private raw = ""
  /** Index in `raw` of the next undecoded character of the string value; -1 before it starts. */
  private pos = -1
  private done = false
  /** A high surrogate held back until its pair arrives, so no delta splits a character. */
  private pendingHigh = ""
  /** Everything decoded so far. */
  decoded = ""

  /** Feeds a chunk of the raw JSON; returns the newly decoded script text (maybe empty). */
  push(chunk: string): string {
    this.raw += chunk
    if (this.done) return ""
    if (this.pos < 0) {
      const match = SCRIPT_START.exec(this.raw)
      if (!match) return ""
      this.pos = match.index + match[0].length
    }
    let out = this.pendingHigh
    this.pendingHigh = ""
    const raw = this.raw
    let i = this.pos
    while (i < raw.length) {
      const c = raw[i]!
      if (c === '"') {
        this.done = true
        i++
        break
      }
      if (c !== "\\") {
        out += c
        i++
        continue
      }
      if (i + 1 >= raw.length) break
      const e = raw[i + 1]!
      if (e === "u") {
        if (i + 6 > raw.length) break
        out += String.fromCharCode(parseInt(raw.slice(i + 2, i + 6), 16))
        i += 6
        continue
      }
      out += ESCAPES[e] ?? e
      i += 2
    }
    this.pos = i
    if (!this.done && out.length > 0) {
      const last = out.charCodeAt(out.length - 1)
      if (last >= 0xd800 && last <= 0xdbff) {
        this.pendingHigh = out.slice(-1)
        out = out.slice(0, -1)
      }
    }
    this.decoded += out
    return out
  }

  /** The raw JSON received so far. */
  get text(): string {
    return this.raw
  }
}

const ESCAPES: Record<string, string> = { n: "\n", r: "\r", t: "\t", b: "\b", f: "\f", "/": "/", "\\": "\\", '"': '"' }
