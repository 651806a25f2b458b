/**
 * OpenTelemetry for `clanka run`: off, and not even loaded, unless the environment names an OTLP
 * endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; OTEL_SDK_DISABLED=true
 * wins). This module imports nothing of OpenTelemetry at run time: the SDK comes in by dynamic
 * import when wanted.
 */
import type { Agent, AgentOptions } from "../agent/agent.ts"
import type { RunTarget } from "./instrument.ts"
import type { Otel } from "./otel.ts"
import { settlesWithin } from "../util/settles-within.ts"
import { visible } from "../output/visible.ts"

export type { RunTarget }

type Env = Record<string, string | undefined>

/** How long exporting what is left may hold up the exit. */
const FLUSH_TIMEOUT_MS = 3000

let started: Promise<Otel | undefined> | undefined

export function telemetryWanted(env: Env = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim())
}

let warned = false

/**
 * One line about telemetry at most per process: a collector that is down is one problem. What the
 * collector answered is shown as `cat -v` does (it cannot drive the terminal), on one line.
 */
function warn(line: string): void {
  if (warned) return
  warned = true
  say(line)
}

/** A line about the setup (an unsupported setting): said apart from the export's one line. */
function say(line: string): void {
  process.stderr.write(`clanka: ${visible(line).replaceAll("\n", "^J")}\n`)
}

/**
 * `create(options)`, traced when telemetry is wanted: the agent's runs, model requests, scripts
 * and tool calls become spans. When the SDK cannot start the run goes on untraced, with a warning.
 */
export async function traceAgent(create: (options: AgentOptions) => Agent, options: AgentOptions, target: RunTarget): Promise<Agent> {
  if (!telemetryWanted()) return create(options)
  const otel = await (started ??= import("./otel.ts")
    .then(({ startOtel }) => startOtel(process.env, warn, say))
    .catch((error: unknown) => {
      warn(`OpenTelemetry is off: ${error instanceof Error ? error.message : String(error)}`)
      return undefined
    }))
  if (!otel) return create(options)
  const { instrumentAgent } = await import("./instrument.ts")
  return instrumentAgent(otel, create, options, target)
}

/**
 * Exports what is still pending, for at most a few seconds: called once the command is done,
 * whatever its exit code. False when the time ran out (an export still hangs).
 */
export async function flushTelemetry(timeoutMs = FLUSH_TIMEOUT_MS): Promise<boolean> {
  const otel = await started
  started = undefined
  if (!otel) return true
  const finished = await settlesWithin(otel.shutdown(), timeoutMs)
  if (!finished) {
    const endpoint = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || process.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
    warn(`OpenTelemetry export to ${endpoint === undefined ? endpoint : shownEndpoint(endpoint)} did not finish within ${timeoutMs / 1000} s; the spans and metrics not yet sent are dropped`)
  }
  return finished
}

/** The endpoint as a message shows it (a CI log, a terminal): a token in it (`user:token@`, a query) left out. */
function shownEndpoint(endpoint: string): string {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    return endpoint
  }
  if (!url.username && !url.password && !url.search) return endpoint
  return `${url.protocol}//${url.username || url.password ? "…@" : ""}${url.host}${url.pathname}${url.search ? "?…" : ""}`
}
