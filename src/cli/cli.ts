import type { CommandDef } from "citty"
import { ClankaError, ExitCode, UsageError } from "../errors.ts"
import { VERSION } from "../version.ts"
import { visible } from "../output/visible.ts"
import { checkArgs } from "./argv.ts"
import { nearest } from "./nearest.ts"
import { commands } from "./commands.ts"
import { errorMessage } from "../util/error-message.ts"
import { STANDBY_COMMANDS } from "../executor/standby-names.ts"
import { streamsMade, useStreams } from "./streams.ts"

/**
 * Each command's module, loaded only when the command runs: its help and its usage errors come
 * from commands.ts. Until a command runs, output goes through console.log and console.error,
 * which cost nothing, where process.stdout and process.stderr build Node streams (15-20 ms in
 * the compiled binary); so --version, help and usage errors stay as fast as an empty program.
 */
const modules: Record<string, () => Promise<CommandDef<any>>> = {
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
  summary: () => import("./summary.ts").then((m) => m.default),
  acp: () => import("./acp.ts").then((m) => m.default),
  batch: () => import("./batch.ts").then((m) => m.default),
  worker: () => import("./worker.ts").then((m) => m.default),
}

/**
 * Once the streams are made (streams.ts), clanka's own lines go through process.stdout and
 * process.stderr as the command's do, since console.log can overtake a write still waiting for a
 * full pipe.
 */
function say(to: "stdout" | "stderr", line: string): void {
  if (streamsMade()) process[to].write(line + "\n")
  else if (to === "stdout") console.log(line)
  else console.error(line)
}

/** Commands that make process.stdout and process.stderr themselves, when they need them (streams.ts). */
const lateStreams = new Set(["executor", "run", "exec"])

/** Commands whose positional words are all one argument: `clanka run fix the bug`. */
const joinsWords = new Set(["run"])

/** Runs the command line and returns the process exit code. Errors become one line on stderr. */
export async function runCli(argv: string[]): Promise<number> {
  try {
    // Only global flags before the command: help wins over the version.
    if (argv.length === 0 || argv[0]!.startsWith("-")) {
      const unknown = argv.find((arg) => !["--help", "-h", "--version", "-v"].includes(arg))
      if (unknown !== undefined && commands[unknown]) {
        // `clanka --help run`, as git and others take it: the help of run.
        if (argv.includes("--help") || argv.includes("-h")) {
          await printHelp(unknown)
          return ExitCode.ok
        }
        throw new UsageError(`--version takes no command: clanka --version`)
      }
      if (unknown !== undefined) {
        throw new UsageError(`${unknown.startsWith("-") ? "unknown option" : "unknown command"} "${unknown}" (see clanka --help)`)
      }
      if (argv.length > 0 && !argv.includes("--help") && !argv.includes("-h")) {
        console.log(`clanka ${VERSION}`)
        return ExitCode.ok
      }
      await printHelp()
      return argv.length === 0 ? ExitCode.usage : ExitCode.ok
    }
    const [name, ...rest] = argv
    const spec = commands[name!]
    if (!spec) throw unknownCommand(name!)
    if (rest.includes("--help") || rest.includes("-h")) {
      await printHelp(name)
      return ExitCode.ok
    }
    try {
      const { args } = checkArgs(rest, spec.args, { command: name!, joinsWords: joinsWords.has(name!) })
      if (name === "help") {
        const topic = args._[0]
        if (topic !== undefined && !commands[topic]) throw unknownCommand(topic)
        await printHelp(topic)
        return ExitCode.ok
      }
      // The executor serves its protocol without Node's streams (bun-stdio.ts); run and exec make
      // them once their executor's process has started.
      if (!lateStreams.has(name!)) useStreams()
      if (STANDBY_COMMANDS.has(name!)) {
        // The executor's process starts now when it can be a standby (standby.ts): Bun's start
        // then goes on beside the rest of this one's.
        const { standbyKind, startStandby } = await import("../executor/standby.ts")
        const kind = standbyKind(name!, args)
        if (kind) startStandby(kind)
      }
      if (startsSandbox(name!, args)) (await import("../executor/process-bound.ts")).cgroupAhead()
      const command = await modules[name!]!()
      const result: unknown = await command.run?.({ args: args as never, rawArgs: rest, cmd: command })
      return typeof result === "number" ? result : ExitCode.ok
    } catch (error) {
      // In ndjson mode a failed run always ends with an AgentError line: a bad flag, a missing
      // key or an unreachable executor as much as a failed task (which run reports itself).
      if (name === "run" && error instanceof ClankaError && wantsNdjson(rest)) {
        say("stdout", JSON.stringify({ _tag: "AgentError", message: error.message, exitCode: error.exitCode }))
      }
      throw error
    }
  } catch (error) {
    return reportError(error)
  }
}

/** run and exec start a local sandbox unless told to work elsewhere or without one: its cgroup is made early. */
function startsSandbox(name: string, args: Record<string, unknown>): boolean {
  return (name === "run" || name === "exec") && process.platform === "linux" && args.sandbox !== "off" && args.ssh === undefined && args.executor === undefined
}

function unknownCommand(name: string): UsageError {
  if (name === "version") return new UsageError(`unknown command "version"; clanka --version prints the version`)
  const meant = nearest(name, Object.keys(commands))
  if (meant !== undefined) return new UsageError(`unknown command "${name}"; did you mean ${meant}? (clanka --help lists the commands)`)
  return new UsageError(`unknown command "${name}"; commands: ${Object.keys(commands).join(", ")} (clanka --help)`)
}

/** The help of clanka (with its options, environment and exit codes), or of one command. */
async function printHelp(name?: string): Promise<void> {
  const [{ commandHelp, topLevelHelp }, { terminalOf }] = await Promise.all([import("./help.ts"), import("./terminal.ts")])
  const terminal = terminalOf()
  const style = { width: columnsVariable() ?? terminal.columns ?? 80, color: terminal.isTTY && !process.env.NO_COLOR }
  // console.log ends the line itself.
  console.log((name === undefined ? topLevelHelp(style) : commandHelp(name, style)).replace(/\n$/, ""))
}

/**
 * COLUMNS, when it is a whole number above zero: the width the user asks for, as POSIX has it
 * (`COLUMNS=60 clanka help | less`); it wins over the terminal's own width.
 */
function columnsVariable(): number | undefined {
  const value = process.env.COLUMNS?.trim() ?? ""
  return /^[1-9]\d{0,4}$/.test(value) ? Number(value) : undefined
}

function wantsNdjson(args: string[]): boolean {
  return args.some(
    (arg, i) =>
      arg === "--json" ||
      arg === "--output=ndjson" ||
      arg === "-ondjson" ||
      arg === "--input=ndjson" ||
      ((arg === "-o" || arg === "--output" || arg === "--input") && args[i + 1] === "ndjson"),
  )
}

/** Prints one line for the user; the stack only with CLANKA_DEBUG=1. */
export function reportError(error: unknown): number {
  const debug = process.env.CLANKA_DEBUG === "1"
  if (error instanceof ClankaError) {
    say("stderr", `clanka: ${visible(error.message)}`)
    if (debug && error.stack) say("stderr", error.stack)
    return error.exitCode
  }
  const message = errorMessage(error)
  say("stderr", `clanka: ${visible(message.split("\n")[0]!)}`)
  if (debug && error instanceof Error && error.stack) say("stderr", error.stack)
  return ExitCode.failed
}
