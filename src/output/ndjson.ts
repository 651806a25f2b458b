import type { AgentEvent } from "../agent/events.ts"
import type { Sink } from "./sink.ts"

/** `--output ndjson`: each event as one JSON line on stdout, nothing else. */
export function ndjsonFormatter(out: Sink): (event: AgentEvent) => void {
  return (event) => out.write(JSON.stringify(event) + "\n")
}
