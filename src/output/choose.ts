import { UsageError } from "../errors.ts"

export const outputFormats = ["pretty", "ndjson", "text"] as const
export type OutputFormat = (typeof outputFormats)[number]

/** The format `--output` / `--json` ask for; without either, pretty on a terminal, else text. */
export function chooseOutputFormat(output: string | undefined, json: boolean | undefined): OutputFormat {
  return askedOutputFormat(output, json) ?? terminalFormat()
}

/**
 * The format `--output` / `--json` ask for, checked; undefined when neither does (the terminal
 * decides: terminalFormat). Apart so that `run` can refuse a bad value at once and look at stdout
 * only once its executor has started (making process.stdout costs milliseconds: streams.ts).
 */
export function askedOutputFormat(output: string | undefined, json: boolean | undefined): OutputFormat | undefined {
  if (json) {
    if (output !== undefined && output !== "ndjson") throw new UsageError(`--json means --output ndjson, not "${output}"`)
    return "ndjson"
  }
  if (output === undefined) return undefined
  if (!(outputFormats as readonly string[]).includes(output)) throw new UsageError(`unknown output format "${output}": use one of ${outputFormats.join(", ")}`)
  return output as OutputFormat
}

/** Pretty on a terminal, else text. */
export function terminalFormat(): OutputFormat {
  return process.stdout.isTTY ? "pretty" : "text"
}
