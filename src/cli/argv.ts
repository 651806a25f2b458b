/**
 * Checks a subcommand's arguments before citty parses them. citty accepts anything: unknown
 * flags, a flag whose value is missing or is the next flag (`--ssh -e CODE` takes "-e" as the
 * host), a flag given twice (the last one wins silently), stray words. Each of these is a usage
 * error here, with one line naming the argument. The reading of flags follows citty's parser
 * (node:util parseArgs): `--name value`, `--name=value`, `-x value`, `-xvalue`.
 */
import { UsageError } from "../errors.ts"

interface Flag {
  /** The name citty knows the flag by; aliases and `no-` forms map to it. */
  main: string
  type: "string" | "boolean"
  /** May be given several times (`--writable A --writable B`); see REPEAT_SEPARATOR. */
  repeatable: boolean
}

/**
 * citty keeps only the last value of a flag given twice, so the values of a repeatable flag reach
 * it joined with this character, which no argument can hold; `repeated()` splits them again.
 */
const REPEAT_SEPARATOR = "\0"

/** The values of a repeatable flag as the command receives it from citty. */
export function repeated(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(REPEAT_SEPARATOR)
}

export interface CheckedArgs {
  /** The positional words, in order (after `--` every word is one). */
  positionals: string[]
  /**
   * The same words as citty should read them: the flags with their values, then `--` and the
   * positionals. citty alone would take a positional such as `-5` (`clanka tool sleep -5`) for a
   * flag named 5.
   */
  forCitty: string[]
}

export function checkArgs(rawArgs: string[], argsDef: Record<string, any>): CheckedArgs {
  const flags = flagTable(argsDef)
  const given = new Set<string>()
  const positionals: string[] = []
  const options: string[] = []
  const repeats = new Map<string, string[]>()
  const takeValue = (spelling: string, flag: Flag, value: string | undefined, next: () => string | undefined) => {
    if (flag.type !== "string") return
    if (given.has(flag.main) && !flag.repeatable) throw new UsageError(`${spelling} was given twice; give it once`)
    given.add(flag.main)
    if (value === undefined) {
      value = next()
      if (value === undefined || isFlag(value, flags)) {
        throw new UsageError(`${spelling} needs a value (see clanka --help)`)
      }
      if (!flag.repeatable) options.push(value)
    }
    if (flag.repeatable) {
      options.pop() // the spelling; all values go to citty together at the end
      repeats.set(flag.main, [...(repeats.get(flag.main) ?? []), value])
    }
  }
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!
    const next = () => rawArgs[++i]
    if (arg === "--") {
      positionals.push(...rawArgs.slice(i + 1))
      break
    }
    if (!arg.startsWith("-") || arg === "-" || /^-\d/.test(arg)) {
      positionals.push(arg)
      continue
    }
    options.push(arg)
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=")
      const name = arg.slice(2, eq === -1 ? undefined : eq)
      const flag = flags.get(name)
      if (!flag) throw unknown(arg)
      takeValue(`--${name}`, flag, eq === -1 ? undefined : arg.slice(eq + 1), next)
      continue
    }
    // A cluster of short flags; a string flag takes the rest of the word, or the next word.
    for (let c = 1; c < arg.length; c++) {
      const flag = flags.get(arg[c]!)
      if (!flag) throw unknown(arg)
      if (flag.type === "string") {
        takeValue(`-${arg[c]}`, flag, c + 1 < arg.length ? arg.slice(c + 1) : undefined, next)
        break
      }
    }
  }
  for (const [name, values] of repeats) options.push(`--${name}=${values.join(REPEAT_SEPARATOR)}`)
  return { positionals, forCitty: [...options, "--", ...positionals] }
}

function flagTable(argsDef: Record<string, any>): Map<string, Flag> {
  const flags = new Map<string, Flag>()
  for (const [name, def] of Object.entries(argsDef)) {
    if (def.type === "positional") continue
    const flag: Flag = { main: name, type: def.type === "boolean" ? "boolean" : "string", repeatable: def.repeatable === true }
    flags.set(name, flag)
    for (const alias of [def.alias ?? []].flat() as string[]) flags.set(alias, flag)
    if (def.type === "boolean") flags.set(`no-${name}`, flag)
  }
  return flags
}

/** Whether `arg` would be read as one of the flags (so it cannot be the previous flag's value). */
function isFlag(arg: string, flags: Map<string, Flag>): boolean {
  if (arg === "--") return true
  if (arg.startsWith("--")) return flags.has(arg.slice(2).split("=")[0]!)
  return arg.length > 1 && arg.startsWith("-") && flags.has(arg[1]!)
}

function unknown(arg: string): UsageError {
  return new UsageError(`unknown option "${arg}" (see clanka --help)`)
}
