import type { AgentEvent } from "../agent/events.ts"
import { prettyFormatter } from "./pretty.ts"
import type { Sink } from "./sink.ts"

/**
 * `--output text` (the default when piped): progress on stderr, and on stdout only the result —
 * the final summary, or with --json-schema the validated JSON alone.
 */
export function textFormatter(out: Sink, err: Sink, options: { color: boolean }): (event: AgentEvent) => void {
  const progress = prettyFormatter(err, { color: options.color, summary: false })
  let structured: { value: unknown } | undefined
  return (event) => {
    progress(event)
    if (event._tag === "StructuredOutput") structured = { value: event.value }
    if (event._tag === "AgentFinished") {
      if (structured) out.write(JSON.stringify(structured.value, null, 2) + "\n")
      else if (event.summary) out.write(event.summary.replace(/\n?$/, "\n"))
    }
  }
}
