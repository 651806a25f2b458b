/**
 * Reads a subcommand's arguments into the object its `run({ args })` receives, by the flags
 * declared in commands.ts. Unknown flags, a flag whose value is missing or is the next flag
 * (`--ssh -e CODE`), a flag given twice and stray words are usage errors, with one line naming
 * the argument. Flags are read as `--name value`, `--name=value`, `-x value`, `-xvalue`, `-abc`
 * (short booleans), `--no-name` (a boolean off), as citty's own parser reads them; citty is not
 * loaded at run time (its parser, over node:util, cost 2–3 ms of each start).
 */
import { UsageError } from "../errors.ts"
import { nearest } from "./nearest.ts"

interface Flag {
  /** The name citty knows the flag by; aliases and `no-` forms map to it. */
  main: string
  type: "string" | "boolean"
  /** May be given several times (`--writable A --writable B`); see REPEAT_SEPARATOR. */
  repeatable: boolean
}

/**
 * A repeatable flag's values reach the command as one string joined with this character, which
 * no argument can hold; `repeated()` splits them again.
 */
const REPEAT_SEPARATOR = "\0"

/** The values of a repeatable flag as the command receives them. */
export function repeated(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(REPEAT_SEPARATOR)
}

export interface CheckedArgs {
  /**
   * What the command's `run({ args })` gets: each flag under its declared name (its default when
   * not given; a repeatable one's values joined, see `repeated`), each declared positional under
   * its name, and all positional words in `_`, in order (after `--` every word is one).
   */
  args: Record<string, unknown> & { _: string[] }
}

/** The command the words are for: named in the errors; `joinsWords` takes any number of positional words. */
export interface CommandWords {
  command: string
  joinsWords?: boolean
}

export function checkArgs(rawArgs: string[], argsDef: Record<string, any>, words?: CommandWords): CheckedArgs {
  const flags = flagTable(argsDef)
  const given = new Set<string>()
  const positionals: string[] = []
  const values: Record<string, unknown> = {}
  for (const [name, def] of Object.entries(argsDef)) if (def.type !== "positional" && def.default !== undefined) values[name] = def.default
  const repeats = new Map<string, string[]>()
  // The command's own help lists its flags; clanka --help lists none of them.
  const see = words ? `(see clanka ${words.command} --help)` : "(see clanka --help)"
  const takeValue = (spelling: string, flag: Flag, value: string | undefined, next: () => string | undefined) => {
    if (flag.type !== "string") return
    if (given.has(flag.main) && !flag.repeatable) throw new UsageError(`${spelling} was given twice; give it once`)
    given.add(flag.main)
    if (value === undefined) {
      value = next()
      if (value === undefined || isFlag(value, flags)) {
        throw new UsageError(`${spelling} needs a value ${see}`)
      }
    }
    if (flag.repeatable) repeats.set(flag.main, [...(repeats.get(flag.main) ?? []), value])
    else values[flag.main] = value
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
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=")
      const name = arg.slice(2, eq === -1 ? undefined : eq)
      const flag = flags.get(name)
      if (!flag) throw unknown(arg, see, flags)
      const value = eq === -1 ? undefined : arg.slice(eq + 1)
      // `--no-name` turns a boolean off; `--name=false` too.
      if (flag.type === "boolean") values[flag.main] = name !== flag.main && name.startsWith("no-") ? false : value !== "false"
      takeValue(`--${name}`, flag, value, next)
      continue
    }
    // A cluster of short flags; a string flag takes the rest of the word, or the next word.
    for (let c = 1; c < arg.length; c++) {
      const flag = flags.get(arg[c]!)
      if (!flag) throw unknown(arg, see, flags)
      if (flag.type === "string") {
        takeValue(`-${arg[c]}`, flag, c + 1 < arg.length ? arg.slice(c + 1) : undefined, next)
        break
      }
      values[flag.main] = true
    }
  }
  for (const [name, given] of repeats) values[name] = given.join(REPEAT_SEPARATOR)
  const declared = Object.entries(argsDef).filter(([, def]) => def.type === "positional")
  if (words) {
    if (!words.joinsWords && positionals.length > declared.length) throw new UsageError(`unexpected argument "${positionals[declared.length]}" ${see}`)
    const missing = declared.find(([, def], index) => def.required && positionals[index] === undefined)
    if (missing) throw new UsageError(`missing ${missing[1].valueHint ?? missing[0]} ${see}`)
  }
  declared.forEach(([name, def], index) => {
    const value = positionals[index] ?? def.default
    if (value !== undefined) values[name] = value
  })
  return { args: { ...values, _: positionals } }
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

/** `--modle` → `unknown option "--modle"; did you mean --model?`, naming the command's help. */
function unknown(arg: string, see: string, flags: Map<string, Flag>): UsageError {
  if (arg === "--version" || arg === "-v") return new UsageError(`${arg} goes before the command: clanka ${arg}`)
  const long = arg.startsWith("--") ? nearest(arg.slice(2).split("=")[0]!, [...flags.keys()].filter((name) => name.length > 1)) : undefined
  return new UsageError(`unknown option "${arg}"${long === undefined ? "" : `; did you mean --${long}?`} ${see}`)
}
