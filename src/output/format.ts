import type { AgentEvent } from "../agent/events.ts"
import type { OutputFormat } from "./choose.ts"
import { ndjsonFormatter } from "./ndjson.ts"
import { prettyFormatter } from "./pretty.ts"
import { wantsColor, type Sink } from "./sink.ts"
import { textFormatter } from "./text.ts"

interface FormatterStreams {
  stdout: Sink & { isTTY?: boolean }
  stderr: Sink & { isTTY?: boolean }
  env?: Record<string, string | undefined>
  /** Pretty output shows running scripts live when stdout is a terminal; false turns that off (replays). */
  live?: boolean
}

/** The formatter for `--output`; pretty goes to stdout, text splits result and progress. */
export function createFormatter(format: OutputFormat, streams: FormatterStreams): (event: AgentEvent) => void {
  const env = streams.env ?? process.env
  switch (format) {
    case "ndjson":
      return ndjsonFormatter(streams.stdout, streams.stderr)
    case "pretty":
      return prettyFormatter(streams.stdout, { color: wantsColor(streams.stdout, env), live: streams.live ?? Boolean(streams.stdout.isTTY) })
    case "text":
      return textFormatter(streams.stdout, streams.stderr, { color: wantsColor(streams.stderr, env) })
  }
}
