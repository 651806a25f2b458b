import { join } from "node:path"

// Set by scripts/build.ts for the compiled binary.
declare const CLANKA_COMPILED: boolean | undefined

/**
 * The command line that runs this same clanka: the compiled binary itself, or Bun with the entry
 * script when running from source. It starts in directories that are not clanka's (an executor in
 * its workspace, a batch task in its worktree), whose .env files and bunfig.toml Bun would read:
 * the compiled binary is built not to (scripts/build.ts), and Bun is told so from source.
 */
export function selfCommand(): string[] {
  const compiled = compiledSelf()
  return compiled ? [compiled] : [process.execPath, "--no-env-file", "--config=/dev/null", join(import.meta.dir, "../cli/main.ts")]
}

/** This process's executable when it is the compiled clanka; from source there is none to copy. */
export function compiledSelf(): string | undefined {
  return typeof CLANKA_COMPILED !== "undefined" && CLANKA_COMPILED ? process.execPath : undefined
}
