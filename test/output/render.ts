// Shared by the output tests: what a formatter writes for a list of events to terminals (isTTY).
import type { AgentEvent } from "../../src/agent/events.ts"
import { createFormatter } from "../../src/output/format.ts"
import type { OutputFormat } from "../../src/output/choose.ts"

/** Prints `events` in `format` to two terminal streams and returns what each received. */
export function render(format: OutputFormat, events: AgentEvent[], env: Record<string, string> = { NO_COLOR: "1" }) {
  let stdout = ""
  let stderr = ""
  const print = createFormatter(format, {
    stdout: { write: (s: string) => (stdout += s), isTTY: true },
    stderr: { write: (s: string) => (stderr += s), isTTY: true },
    env,
  })
  for (const event of events) print(event)
  return { stdout, stderr }
}
