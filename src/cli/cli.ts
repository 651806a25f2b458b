import { defineCommand, renderUsage, runCommand, type CommandDef } from "citty"
import { ClankaError, ExitCode, UsageError } from "../errors.ts"
import { VERSION } from "../version.ts"
import { checkArgs } from "./argv.ts"

const subCommands: Record<string, () => Promise<CommandDef<any>>> = {
  run: () => import("./run.ts").then((m) => m.default),
  exec: () => import("./exec.ts").then((m) => m.default),
  tool: () => import("./tool.ts").then((m) => m.default),
  tools: () => import("./tools.ts").then((m) => m.default),
  executor: () => import("./executor.ts").then((m) => m.default),
}

const main = defineCommand({
  meta: {
    name: "clanka",
    version: VERSION,
    description: "A coding agent in code mode: the model writes JavaScript that calls the tools.",
  },
  subCommands,
})

/** Commands whose positional words are all one argument: `clanka run fix the bug`. */
const joinsWords = new Set(["run"])

/** Runs the command line and returns the process exit code. Errors become one line on stderr. */
export async function runCli(argv: string[]): Promise<number> {
  try {
    if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h") {
      process.stdout.write((await renderUsage(main)) + "\n")
      return argv.length === 0 ? ExitCode.usage : ExitCode.ok
    }
    const [name, ...rest] = argv
    const load = subCommands[name!]
    if (!load) throw new UsageError(`unknown command "${name}"; commands: ${Object.keys(subCommands).join(", ")} (clanka --help)`)
    const command = await load()
    if (rest.includes("--help") || rest.includes("-h")) {
      process.stdout.write((await renderUsage(command, main)) + "\n")
      return ExitCode.ok
    }
    const argsDef = (await resolveArgs(command)) ?? {}
    const { positionals } = checkArgs(rest, argsDef)
    const expected = Object.values(argsDef).filter((def) => def.type === "positional").length
    if (!joinsWords.has(name!) && positionals.length > expected) {
      throw new UsageError(`unexpected argument "${positionals[expected]}" (see clanka ${name} --help)`)
    }
    const { result } = await runCommand(command, { rawArgs: rest })
    return typeof result === "number" ? result : ExitCode.ok
  } catch (error) {
    return reportError(error)
  }
}

async function resolveArgs(command: CommandDef<any>): Promise<Record<string, any> | undefined> {
  const args = command.args
  return typeof args === "function" ? await args() : await args
}

/** Prints one line for the user; the stack only with CLANKA_DEBUG=1. */
export function reportError(error: unknown): number {
  const debug = process.env.CLANKA_DEBUG === "1"
  if (error instanceof ClankaError) {
    process.stderr.write(`clanka: ${error.message}\n`)
    if (debug && error.stack) process.stderr.write(error.stack + "\n")
    return error.exitCode
  }
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(`clanka: ${message.split("\n")[0]}\n`)
  if (debug && error instanceof Error && error.stack) process.stderr.write(error.stack + "\n")
  return ExitCode.failed
}
