import { defineCommand, renderUsage, runCommand, type CommandDef } from "citty"
import { ClankaError, ExitCode, UsageError } from "../errors.ts"
import { VERSION } from "../version.ts"
import { wantsColor } from "../output/sink.ts"
import { visible } from "../output/visible.ts"
import { checkArgs } from "./argv.ts"
import { errorMessage } from "../util/error-message.ts"

const subCommands: Record<string, () => Promise<CommandDef<any>>> = {
  run: () => import("./run.ts").then((m) => m.default),
  exec: () => import("./exec.ts").then((m) => m.default),
  tool: () => import("./tool.ts").then((m) => m.default),
  tools: () => import("./tools.ts").then((m) => m.default),
  skills: () => import("./skills.ts").then((m) => m.default),
  executor: () => import("./executor.ts").then((m) => m.default),
  config: () => import("./config.ts").then((m) => m.default),
  trust: () => import("./trust.ts").then((m) => m.default),
  mcp: () => import("./mcp.ts").then((m) => m.default),
  sessions: () => import("./sessions.ts").then((m) => m.default),
  help: () => import("./help.ts").then((m) => m.default),
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
  // A closed stdout or stderr (a pipe whose reader left) must not crash with a stack trace;
  // commands that stream watch stdout themselves (interrupt.ts) and stop.
  process.stdout.on("error", () => {})
  process.stderr.on("error", () => {})
  try {
    // Only global flags before the command: help wins over the version.
    if (argv.length === 0 || argv[0]!.startsWith("-")) {
      const unknown = argv.find((arg) => !["--help", "-h", "--version", "-v"].includes(arg))
      if (unknown !== undefined) {
        throw new UsageError(`${unknown.startsWith("-") ? "unknown option" : "unknown command"} "${unknown}" (see clanka --help)`)
      }
      if (argv.length > 0 && !argv.includes("--help") && !argv.includes("-h")) {
        process.stdout.write(`clanka ${VERSION}\n`)
        return ExitCode.ok
      }
      await printHelp()
      return argv.length === 0 ? ExitCode.usage : ExitCode.ok
    }
    const [name, ...rest] = argv
    const load = subCommands[name!]
    if (!load) throw unknownCommand(name!)
    const command = await load()
    if (rest.includes("--help") || rest.includes("-h")) {
      await printHelp(name)
      return ExitCode.ok
    }
    const argsDef = (await resolveArgs(command)) ?? {}
    try {
      const { positionals, forCitty } = checkArgs(rest, argsDef)
      const declared = Object.entries(argsDef).filter(([, def]) => def.type === "positional")
      if (!joinsWords.has(name!) && positionals.length > declared.length) {
        throw new UsageError(`unexpected argument "${positionals[declared.length]}" (see clanka ${name} --help)`)
      }
      const missing = declared.find(([, def], index) => def.required && positionals[index] === undefined)
      if (missing) throw new UsageError(`missing ${missing[1].valueHint ?? missing[0]} (see clanka ${name} --help)`)
      if (name === "help") {
        const topic = positionals[0]
        if (topic !== undefined && !subCommands[topic]) throw unknownCommand(topic)
        await printHelp(topic)
        return ExitCode.ok
      }
      const { result } = await runCommand(command, { rawArgs: forCitty })
      return typeof result === "number" ? result : ExitCode.ok
    } catch (error) {
      // In ndjson mode a failed run always ends with an AgentError line: a bad flag, a missing
      // key or an unreachable executor as much as a failed task (which run reports itself).
      if (name === "run" && error instanceof ClankaError && wantsNdjson(rest)) {
        process.stdout.write(JSON.stringify({ _tag: "AgentError", message: error.message, exitCode: error.exitCode }) + "\n")
      }
      throw error
    }
  } catch (error) {
    return reportError(error)
  }
}

function unknownCommand(name: string): UsageError {
  return new UsageError(`unknown command "${name}"; commands: ${Object.keys(subCommands).join(", ")} (clanka --help)`)
}

/** The help of clanka (with its options, environment and exit codes), or of one command. */
async function printHelp(name?: string): Promise<void> {
  if (name === undefined) {
    const { topLevelHelp } = await import("./help.ts")
    process.stdout.write(plain(await renderUsage(main)) + "\n" + topLevelHelp)
    return
  }
  process.stdout.write(plain(await renderUsage(await subCommands[name]!(), main)) + "\n")
}

function wantsNdjson(args: string[]): boolean {
  return args.some(
    (arg, i) => arg === "--json" || arg === "--output=ndjson" || arg === "-ondjson" || ((arg === "-o" || arg === "--output") && args[i + 1] === "ndjson"),
  )
}

async function resolveArgs(command: CommandDef<any>): Promise<Record<string, any> | undefined> {
  const args = command.args
  return typeof args === "function" ? await args() : await args
}

/** citty colours its help unless NO_COLOR=1 or CI; colour only a terminal, and honour any NO_COLOR. */
function plain(text: string): string {
  return wantsColor(process.stdout) ? text : text.replace(/\x1b\[[0-9;]*m/g, "")
}

/** Prints one line for the user; the stack only with CLANKA_DEBUG=1. */
export function reportError(error: unknown): number {
  const debug = process.env.CLANKA_DEBUG === "1"
  if (error instanceof ClankaError) {
    process.stderr.write(`clanka: ${visible(error.message)}\n`)
    if (debug && error.stack) process.stderr.write(error.stack + "\n")
    return error.exitCode
  }
  const message = errorMessage(error)
  process.stderr.write(`clanka: ${visible(message.split("\n")[0]!)}\n`)
  if (debug && error instanceof Error && error.stack) process.stderr.write(error.stack + "\n")
  return ExitCode.failed
}
