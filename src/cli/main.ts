#!/usr/bin/env bun
// Entry point of the clanka binary. `--version` answers before anything else is imported, and
// each subcommand's module is loaded only when that subcommand runs: start-up stays fast. The
// version goes out through console.log: process.stdout would build a Node stream first, which
// doubles the cost of an empty program in the compiled binary.
import { VERSION } from "../version.ts"

const argv = process.argv.slice(2)
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
  console.log(`clanka ${VERSION}`)
} else if (argv[0] === "__landlock-exec") {
  await landlockStep(argv.slice(1))
} else if (argv[0] === "__standby") {
  // Started before its command line was known (standby.ts): it waits for it, then runs it here.
  const { awaitOrders } = await import("../executor/standby-orders.ts")
  const orders = await awaitOrders(argv[1])
  if (typeof orders === "number") process.exitCode = orders
  else if (orders[0] === "__landlock-exec") await landlockStep(orders.slice(1))
  else await runClanka(orders)
} else if (argv[0] === "__fresh-keyring") {
  // bubblewrap started with a session keyring of its own (session-keyring.ts): nothing else loads first.
  const { freshKeyringExec } = await import("../executor/session-keyring.ts")
  process.exitCode = freshKeyringExec(argv.slice(1))
} else {
  await runClanka(argv)
}

/**
 * The Landlock sandbox's step (landlock-step.ts LANDLOCK_EXEC): nothing else loads first. It
 * executes its command, or fails (a number: the reason is on stderr), or has made this very
 * process the sandboxed executor, which then runs here (landlock-in-place.ts).
 */
async function landlockStep(args: string[]): Promise<void> {
  const { landlockExec } = await import("../executor/landlock-exec.ts")
  const outcome = landlockExec(args)
  if (typeof outcome === "number") process.exitCode = outcome
  else await runClanka(outcome)
}

async function runClanka(argv: string[]): Promise<void> {
  // The binary starts with JavaScriptCore's tier-up thresholds scaled up (scripts/build.ts): code
  // that runs only while clanka starts stays in the interpreter instead of taking CPU to compile.
  // A process still running a second later is working: normal thresholds from then on.
  setTimeout(() => Bun.unsafe.setJITPolicy(1), 1000).unref()
  const { runCli } = await import("./cli.ts")
  process.exitCode = await runCli(argv)
  // Spans and metrics still pending go out before the exit, whatever the exit code; an export
  // that hangs may not hold the exit up for long.
  const { flushTelemetry } = await import("../telemetry/index.ts")
  if (!(await flushTelemetry())) process.exit()
}
