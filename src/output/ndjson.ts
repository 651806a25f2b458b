import type { AgentEvent } from "../agent/events.ts"
import type { Sink } from "./sink.ts"
import { jsonLine } from "./json-line.ts"
import { visible } from "./visible.ts"

/**
 * `--output ndjson`: each event as one JSON line on stdout (json-line.ts), nothing else. A failed
 * hook's warning is also one line on stderr (`err`), where a person watching the run sees it.
 */
export function ndjsonFormatter(out: Sink, err?: Sink): (event: AgentEvent) => void {
  return (event) => {
    out.write(jsonLine(event) + "\n")
    const part = event._tag === "SubagentPart" ? event.part : event
    if (part._tag === "Hook" && part.warning !== undefined) err?.write(`clanka: ${visible(part.warning)}\n`)
  }
}
