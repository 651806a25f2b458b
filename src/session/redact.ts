/**
 * Keeps the agent's secrets out of a transcript (and out of exported spans, telemetry/otel.ts). A secret can reach it whole in one line, written
 * as is or JSON-escaped (a `"` or `\` in it), or split over the deltas of a stream (providers cut
 * text anywhere), where no single line holds it but a reader joining the deltas would. So each
 * stream's pieces are redacted as the text they join into (a script may hold the escaped form too): the end of a piece that could begin a
 * secret is held back until the next piece of that stream shows whether it does.
 */

const REDACTED = "[redacted]"

/** Names of variables whose values are secrets: the model and search keys, tokens, passwords. */
const SECRET_NAME = /(_API_KEY|_TOKEN|_KEY)$|SECRET|PASSWORD/i

/** The values of the environment's secret variables (6 characters or more: shorter ones are too common to replace). */
export function secretValues(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && value && value.length >= 6)
    .map(([, value]) => value!)
}

export class Redactor {
  /** Each secret as is and, where it differs, as written inside a JSON or JavaScript string; longest first. */
  private readonly forms: string[]
  private readonly held = new Map<string, string>()

  constructor(secrets: readonly string[]) {
    const escaped = secrets.map((secret) => JSON.stringify(secret).slice(1, -1))
    this.forms = [...new Set([...secrets, ...escaped])].sort((a, b) => b.length - a.length)
  }

  /** A serialized line with every secret replaced, raw or JSON-escaped. */
  line(text: string): string {
    return replace(text, this.forms)
  }

  /**
   * What of a stream's next piece may be written now: the text held back before plus `text`, with
   * whole secrets replaced, less an end that could begin a secret (kept for the next piece).
   */
  piece(stream: string, text: string): string {
    const joined = replace((this.held.get(stream) ?? "") + text, this.forms)
    const keep = this.heldBack(joined)
    if (keep === 0) this.held.delete(stream)
    else this.held.set(stream, joined.slice(joined.length - keep))
    return joined.slice(0, joined.length - keep)
  }

  /** The end of a stream: what was held back, which turned out not to be a secret. */
  end(stream: string): string {
    const rest = this.held.get(stream) ?? ""
    this.held.delete(stream)
    return rest
  }

  /** Streams with text held back. */
  get streams(): string[] {
    return [...this.held.keys()]
  }

  /** The length of the longest end of `text` that is the start of a secret (not a whole one). */
  private heldBack(text: string): number {
    let longest = 0
    for (const secret of this.forms) {
      for (let length = Math.min(secret.length - 1, text.length); length > longest; length--) {
        if (text.endsWith(secret.slice(0, length))) {
          longest = length
          break
        }
      }
    }
    return longest
  }
}

function replace(text: string, forms: readonly string[]): string {
  for (const form of forms) if (text.includes(form)) text = text.replaceAll(form, REDACTED)
  return text
}
