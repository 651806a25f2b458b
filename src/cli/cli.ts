import { defineCommand, renderUsage, runCommand, type CommandDef } from "citty"
import { ClankaError, ExitCode, UsageError } from "../errors.ts"
import { VERSION } from "../version.ts"

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
    rejectUnknownFlags(rest, (await resolveArgs(command)) ?? {})
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

/** citty accepts any flag; a serious CLI rejects the ones it does not know (exit 2). */
function rejectUnknownFlags(rawArgs: string[], argsDef: Record<string, any>): void {
  const known = new Set<string>()
  for (const [name, def] of Object.entries(argsDef)) {
    if (def.type === "positional") continue
    known.add(name)
    for (const alias of [def.alias ?? []].flat()) known.add(alias)
    if (def.type === "boolean") known.add(`no-${name}`)
  }
  for (const arg of rawArgs) {
    if (arg === "--") break
    if (!arg.startsWith("-") || arg === "-" || /^-\d/.test(arg)) continue
    const name = arg.replace(/^--?/, "").split("=")[0]!
    const names = arg.startsWith("--") || name.length === 1 ? [name] : [...name]
    for (const item of names) {
      if (!known.has(item)) throw new UsageError(`unknown option "${arg}" (see clanka ${"--help"})`)
    }
  }
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
