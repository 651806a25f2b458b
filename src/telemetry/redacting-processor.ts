/**
 * Keeps the agent's secrets out of exported spans, as sessions keep them out of transcripts
 * (session/redact.ts): a span's status message and string attributes carry error messages, and an
 * API may quote the key it was sent in its error ("invalid x-api-key sk-…"). The collector is often
 * another party's service. Runs before the exporting processor, while the span can still be changed.
 */
import { SpanStatusCode } from "@opentelemetry/api"
import type { Span, SpanProcessor } from "@opentelemetry/sdk-trace"
import type { Redactor } from "../session/redact.ts"

export class RedactingProcessor implements SpanProcessor {
  constructor(private readonly redactor: Redactor) {}

  onStart(): void {}

  onEnding(span: Span): void {
    const message = span.status.message
    if (message !== undefined && span.status.code === SpanStatusCode.ERROR) {
      const shown = this.redactor.line(message)
      if (shown !== message) span.setStatus({ code: SpanStatusCode.ERROR, message: shown })
    }
    for (const [key, value] of Object.entries(span.attributes)) {
      if (typeof value !== "string") continue
      const shown = this.redactor.line(value)
      if (shown !== value) span.setAttribute(key, shown)
    }
  }

  onEnd(): void {}

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
}
