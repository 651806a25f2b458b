/**
 * `clanka summary FILE.ndjson|-` turns the events a run printed with `--json` into Markdown for a
 * CI job summary; `--git DIR` adds the files changed in DIR's work tree (`--since REV`: since that
 * revision, commits included). `--json` prints the same facts as one JSON object and `--get NAME`
 * one of them as plain text, for scripts (the GitHub Action sets its outputs from them).
 */
import { defineCommand } from "./define-command.ts"
import { summary as spec } from "./commands.ts"
import { stat } from "node:fs/promises"
import { ExitCode, UsageError } from "../errors.ts"
import { FactsCollector, type RunFacts } from "../ci/facts.ts"
import { renderSummary } from "../ci/markdown.ts"
import { errorMessage } from "../util/error-message.ts"
import { visible } from "../output/visible.ts"

export default defineCommand({
  ...spec,
  async run({ args }): Promise<number> {
    const file: string = args.file
    if (args.since !== undefined && args.git === undefined) throw new UsageError("--since needs --git DIR (the work tree to compare)")
    if (args.json && args.get !== undefined) throw new UsageError("--json and --get are exclusive: --json prints every fact")
    if (args.get !== undefined && !(args.get in FIELDS)) {
      throw new UsageError(`--get: unknown fact "${args.get}"; facts: ${Object.keys(FIELDS).join(", ")}`)
    }
    const collector = new FactsCollector()
    for await (const line of lines(file)) collector.line(line)
    const source = file === "-" ? "stdin" : file
    if (collector.events === 0) throw new UsageError(`${source} holds no clanka events (write them with clanka run --json > FILE)`)
    const facts = collector.facts()
    // git runs only when asked: the module that calls it loads with --git.
    const changed = args.git === undefined ? undefined : await (await import("../ci/changed-files.ts")).changedFiles(args.git, args.since)
    // The model's text and a hostile events file's: on a terminal no escape sequence of theirs is obeyed.
    const print = (text: string) => process.stdout.write(process.stdout.isTTY ? visible(text) : text)
    if (args.get !== undefined) {
      print(plain(FIELDS[args.get]!(facts)) + "\n")
    } else if (args.json) {
      process.stdout.write(JSON.stringify({ ...facts, ...(changed ? { changedFiles: changed } : {}) }) + "\n")
    } else {
      print(renderSummary({ facts, changed, source }))
    }
    return ExitCode.ok
  },
})

/** The facts --get prints, by their --json names. */
const FIELDS: Record<string, (facts: RunFacts) => unknown> = Object.fromEntries(
  (
    [
      "status",
      "exitCode",
      "summary",
      "sessionId",
      "resumedFrom",
      "model",
      "turns",
      "inputTokens",
      "outputTokens",
      "cacheReadTokens",
      "cacheWriteTokens",
      "costUsd",
      "durationMs",
      "scripts",
      "retries",
    ] as const
  ).map((name) => [name, (facts: RunFacts) => facts[name]]),
)

/** null as an empty line, so a shell reads "no value" without parsing JSON. */
function plain(value: unknown): string {
  return value === null || value === undefined ? "" : String(value)
}

/** The lines of FILE (or stdin), read as they come: a long run's stream is never held whole. */
async function* lines(file: string): AsyncGenerator<string> {
  let stream: ReadableStream<Uint8Array>
  if (file === "-") stream = Bun.stdin.stream()
  else {
    try {
      if ((await stat(file)).isDirectory()) throw new UsageError(`${file} is a directory, not a file of events`)
    } catch (error) {
      if (error instanceof UsageError) throw error
      throw new UsageError(`cannot read ${file}: ${errorMessage(error)}`)
    }
    stream = Bun.file(file).stream()
  }
  const decoder = new TextDecoder()
  let rest = ""
  for await (const chunk of stream) {
    rest += decoder.decode(chunk, { stream: true })
    const complete = rest.split("\n")
    rest = complete.pop()!
    yield* complete
  }
  rest += decoder.decode()
  if (rest) yield rest
}
