// Set by scripts/build.ts for the compiled binary.
declare const CLANKA_COMPILED: boolean | undefined

/**
 * The command line that runs this same clanka: the compiled binary itself, or Bun with the entry
 * script when running from source.
 */
export function selfCommand(): string[] {
  const compiled = typeof CLANKA_COMPILED !== "undefined" && CLANKA_COMPILED
  return compiled ? [process.execPath] : [process.execPath, Bun.main]
}
