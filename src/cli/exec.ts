import { defineCommand } from "./define-command.ts"
import { exec as spec } from "./commands.ts"
import { readFile } from "node:fs/promises"
import { ExitCode, UsageError } from "../errors.ts"
import { CancelledError, noSubagents, ScriptError } from "../contract.ts"
import { secondsFlag } from "./duration.ts"
import { callsSearch, openExecutor, sshHosts } from "./executor-flags.ts"
import { reportError } from "./cli.ts"
import { catchInterrupts } from "./interrupt.ts"
import { useStreams } from "./streams.ts"
import { visible } from "../output/visible.ts"

export default defineCommand({
  ...spec,
  async run({ args }) {
    const script = await readScript(args.file, args.eval)
    const timeoutMs = secondsFlag("--timeout", args.timeout)
    const hosts = sshHosts(args)
    if (hosts.length > 1 || args.json) {
      // The same script on every host at once; the local executor (or --executor) is one "host".
      const all = hosts.length > 0 ? hosts : [{ name: args.executor === undefined ? "local" : "executor", target: "" }]
      useStreams()
      const { execOnHosts } = await import("./exec-hosts.ts")
      return execOnHosts(args, all, script, timeoutMs, args.json ?? false)
    }
    // Node's streams are made while the executor starts, not before it (over ssh, once it answered).
    const executor = await openExecutor(args, { searchLikely: callsSearch(script), onSpawn: useStreams })
    useStreams()
    const interrupt = catchInterrupts()
    try {
      const output = executor.execute({
        script,
        timeoutMs,
        signal: interrupt.signal,
        onTaskComplete: (summary) => process.stderr.write(`taskComplete: ${visible(summary)}\n`),
        onSubagent: noSubagents,
        // stdout is what the script printed; why it failed is the one line on stderr.
        onReport: () => {},
      })
      for await (const text of output) await write(text, interrupt.signal)
      return ExitCode.ok
    } catch (error) {
      if (error instanceof CancelledError || interrupt.signal.aborted) return ExitCode.interrupted
      if (error instanceof ScriptError) {
        process.stderr.write(`clanka: the script failed: ${visible(error.message)}\n`)
        return ExitCode.failed
      }
      return reportError(error)
    } finally {
      await executor.close()
      interrupt.dispose()
    }
  },
})

async function readScript(file: string | undefined, code: string | undefined): Promise<string> {
  if (code !== undefined && file !== undefined) throw new UsageError("give the script either as FILE or with -e, not both")
  if (code !== undefined) return code
  if (file === undefined || file === "-") {
    if (file === undefined && process.stdin.isTTY) throw new UsageError("no script: pass FILE, - for stdin, or -e CODE")
    return await new Response(Bun.stdin.stream()).text()
  }
  try {
    return await readFile(file, "utf8")
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}

/**
 * Writes with back-pressure so a script printing gigabytes does not pile up in memory. A closed
 * stdout never drains: the interrupt (which a stdout error raises) ends the wait.
 */
function write(text: string, signal: AbortSignal): Promise<void> | void {
  if (signal.aborted || process.stdout.write(text)) return
  return new Promise((resolve) => {
    const done = () => {
      process.stdout.off("drain", done)
      signal.removeEventListener("abort", done)
      resolve()
    }
    process.stdout.once("drain", done)
    signal.addEventListener("abort", done, { once: true })
  })
}
