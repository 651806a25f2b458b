import { defineCommand } from "./define-command.ts"
import { tool as spec } from "./commands.ts"
import { InvalidParamsError, UnknownToolError } from "../contract.ts"
import { ClankaError, ExitCode, UsageError } from "../errors.ts"
import { openExecutor } from "./executor-flags.ts"
import { catchInterrupts } from "./interrupt.ts"
import { errorMessage } from "../util/error-message.ts"

const interrupted = Symbol("interrupted")

export default defineCommand({
  ...spec,
  async run({ args }) {
    const params = parseParams(args.params === "-" ? await readStdin() : args.params)
    const executor = await openExecutor(args, { searchLikely: args.name === "search" })
    const interrupt = catchInterrupts()
    try {
      // A tool call cannot be cancelled: a signal stops waiting for it, and closing the
      // executor kills what it started.
      const call = executor.executeUnsafe(args.name, params.value)
      const result = await Promise.race([call, interrupt.received.then(() => interrupted)])
      if (result === interrupted) {
        call.catch(() => {})
        return ExitCode.interrupted
      }
      process.stdout.write(JSON.stringify(result ?? null, null, 2) + "\n")
      return ExitCode.ok
    } catch (error) {
      if (interrupt.signal.aborted) return ExitCode.interrupted
      // The executor validates: its own tools decide, wherever it runs.
      if (error instanceof UnknownToolError) throw new UsageError(error.message)
      if (error instanceof InvalidParamsError) {
        // Worded from the executor's own declaration of the tool, wherever it runs.
        const type = async () =>
          args.name.startsWith("mcp.")
            ? mcpParams(String(await executor.executeUnsafe("mcp.describe", args.name).catch(() => "")))
            : declaredParams((await executor.capabilities()).toolsDts, args.name)
        // `clanka tool readFile a.txt`: only a tool whose parameter is one string takes it bare.
        if (params.bare) throw new UsageError(`${args.name}: PARAMS must be JSON of type ${await type()}, got: ${shorten(String(params.value))}`)
        if (params.value === undefined) {
          throw new UsageError(`${args.name}: missing PARAMS: JSON of type ${await type()} (or - to read them from stdin)`)
        }
        throw new UsageError(error.message)
      }
      if (error instanceof ClankaError) throw error
      throw toolFailure(errorMessage(error))
    } finally {
      await executor.close()
      interrupt.dispose()
    }
  },
})

/** JSON, except that a tool taking one string may be given the bare string (`bare`). */
function parseParams(text: string | undefined): { value: unknown; bare: boolean } {
  if (text === undefined) return { value: undefined, bare: false }
  try {
    return { value: JSON.parse(text), bare: false }
  } catch {
    return { value: text, bare: true }
  }
}

/** The parameter type in `declare function NAME(param: TYPE): Promise<…>`, without doc comments. */
function declaredParams(toolsDts: string, name: string): string {
  const line = toolsDts.split("\n").find((text) => text.startsWith(`declare function ${name}(`)) ?? ""
  const type = line.match(/^declare function \w+\(\w+\??: (.*)\): Promise<.*>$/)?.[1] ?? "unknown"
  return type.replace(/\/\*\*.*?\*\/ /g, "")
}

/** The argument type in an MCP tool's declaration (`mcp.describe`), without doc comments. */
function mcpParams(declaration: string): string {
  const type = declaration.match(/\(args\??: (.*)\): Promise<.*>$/m)?.[1] ?? "unknown"
  return type.replace(/\/\*\*.*?\*\/ /g, "")
}

function shorten(text: string): string {
  return text.length > 60 ? text.slice(0, 60) + "…" : text
}

/** PARAMS from stdin without the final newline; nothing but whitespace is no PARAMS. */
async function readStdin(): Promise<string | undefined> {
  const text = await new Response(Bun.stdin.stream()).text()
  return text.trim() === "" ? undefined : text.replace(/\r?\n$/, "")
}

/**
 * A failed tool's message may carry its output (`bash: exit code 3; output:\n…`): stdout is only
 * ever a result's JSON, so the output goes to stderr as the command printed it, then the reason's
 * one line.
 */
function toolFailure(message: string): ClankaError {
  const newline = message.indexOf("\n")
  if (newline === -1) return new ClankaError(message)
  const output = message.slice(newline + 1)
  if (output !== "") process.stderr.write(output.endsWith("\n") ? output : output + "\n")
  return new ClankaError(message.slice(0, newline).replace(/[;:,]?\s*output( so far)?:$/, ""))
}
