/**
 * The standby's names (standby.ts), apart from its modules: cli.ts reads the commands that start
 * one before it loads anything of the standby's, so the others (the executor itself among them)
 * load none of it.
 */

/** The subcommand (hidden from help) that waits for its orders. */
export const STANDBY = "__standby"

/** The commands that start one: those run one at a time from a shell or a script, whose start counts. */
export const STANDBY_COMMANDS: ReadonlySet<string> = new Set(["run", "exec", "tool"])
