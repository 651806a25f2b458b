/**
 * `clanka exec` on several hosts at once (`--ssh web=… --ssh db=…`), or with `--json`: the same
 * script runs on every host in parallel. Text output is line by line, each line prefixed with the
 * host's name; `--json` prints one result object per host as it finishes. The exit code is the
 * worst of the hosts'.
 */
import { CancelledError, type Executor, noSubagents, ScriptError } from "../contract.ts"
import { ClankaError, ExitCode } from "../errors.ts"
import { visible } from "../output/visible.ts"
import { errorMessage } from "../util/error-message.ts"
import { callsSearch, type ExecutorFlags, openHosts, type SshHost } from "./executor-flags.ts"
import { catchInterrupts } from "./interrupt.ts"
import { jsonLine } from "../output/json-line.ts"

/** What `--json` prints for each host, one line each. */
export interface HostResult {
  host: string
  /** The `[USER@]HOST[:DIR]` it was given as (null: the local executor or --executor). */
  ssh: string | null
  exitCode: number
  /** Everything the script printed. */
  output: string
  /** The line that says why it did not exit 0 (what stderr would show), else null. */
  error: string | null
  /** What the script passed to taskComplete, if it called it. */
  taskComplete: string | null
  durationMs: number
}

export async function execOnHosts(
  args: ExecutorFlags,
  hosts: SshHost[],
  script: string,
  timeoutMs: number | undefined,
  json: boolean,
): Promise<number> {
  const interrupt = catchInterrupts()
  try {
    const results = await Promise.all(
      hosts.map(async (host) => {
        const result = await runOn(args, host, script, timeoutMs, interrupt.signal, json ? undefined : prefixer(host.name))
        if (json) process.stdout.write(jsonLine(result) + "\n")
        // Interrupted: quietly, as exec on one host.
        else if (result.error !== null && result.exitCode !== ExitCode.interrupted) process.stderr.write(`clanka: ${host.name}: ${visible(result.error)}\n`)
        return result
      }),
    )
    return Math.max(...results.map((result) => result.exitCode))
  } finally {
    interrupt.dispose()
  }
}

/** Prints one host's output line by line with its name in front; `end()` flushes a last partial line. */
function prefixer(name: string): { write(text: string): Promise<void> | void; end(): void } {
  let partial = ""
  return {
    write(text) {
      const lines = (partial + text).split("\n")
      partial = lines.pop()!
      // Back-pressure: a host printing gigabytes waits for the reader instead of filling memory.
      if (lines.length > 0 && !process.stdout.write(lines.map((line) => `${name}: ${line}\n`).join(""))) {
        return new Promise((resolve) => process.stdout.once("drain", resolve))
      }
    },
    end() {
      if (partial !== "") process.stdout.write(`${name}: ${partial}\n`)
      partial = ""
    },
  }
}

async function runOn(
  args: ExecutorFlags,
  host: SshHost,
  script: string,
  timeoutMs: number | undefined,
  signal: AbortSignal,
  print: ReturnType<typeof prefixer> | undefined,
): Promise<HostResult> {
  const started = Date.now()
  let output = ""
  let taskComplete: string | null = null
  const result = (exitCode: number, error: string | null): HostResult => ({
    host: host.name,
    ssh: host.target || null,
    exitCode,
    output,
    error,
    taskComplete,
    durationMs: Date.now() - started,
  })
  let executor: Executor
  try {
    executor = (await openHosts(args, [host], { searchLikely: callsSearch(script) }))[0]!.executor
  } catch (error) {
    return failure(error)
  }
  try {
    for await (const text of executor.execute({
      script,
      timeoutMs,
      signal,
      onTaskComplete: (summary) => {
        taskComplete = summary
        if (print) process.stderr.write(`${host.name}: taskComplete: ${visible(summary)}\n`)
      },
      onSubagent: noSubagents,
      // Output is what the script printed; why it failed is the error line.
      onReport: () => {},
    })) {
      if (print) await print.write(text)
      else output += text
    }
    return result(ExitCode.ok, null)
  } catch (error) {
    return failure(error)
  } finally {
    print?.end()
    await executor.close()
  }

  function failure(error: unknown): HostResult {
    if (error instanceof CancelledError || signal.aborted) return result(ExitCode.interrupted, "interrupted")
    if (error instanceof ScriptError) return result(ExitCode.failed, `the script failed: ${error.message}`)
    if (error instanceof ClankaError) return result(error.exitCode, error.message)
    return result(ExitCode.failed, errorMessage(error).split("\n")[0]!)
  }
}
