import type { ArgsDef, CommandDef } from "citty"

/**
 * A command's definition, typed as citty types it. cli.ts runs it with the arguments argv.ts read,
 * so citty's own code never loads (its parser, over node:util, cost 2–3 ms of every start).
 */
export function defineCommand<T extends ArgsDef = ArgsDef>(def: CommandDef<T>): CommandDef<T> {
  return def
}
