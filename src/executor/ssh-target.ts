// `--ssh [USER@]HOST[:DIR]` as text: parsed and quoted without loading the executors, so the
// command line can check its hosts before anything starts.
import { UsageError } from "../errors.ts"

export interface SshTarget {
  /** `[USER@]HOST` as ssh takes it (an alias from ~/.ssh/config works). */
  host: string
  directory?: string
}

/** `[USER@]HOST[:DIR]`; `[v6addr]:DIR` for IPv6 literals. */
export function parseSshTarget(spec: string): SshTarget {
  let host = spec
  let directory: string | undefined
  const bracket = spec.match(/^((?:[^@\s]+@)?)\[([^\]]+)\](?::(.*))?$/)
  if (bracket) {
    host = `${bracket[1]}${bracket[2]}`
    directory = bracket[3]
  } else {
    const colon = spec.indexOf(":")
    if (colon !== -1) {
      host = spec.slice(0, colon)
      directory = spec.slice(colon + 1)
    }
  }
  if (host === "" || host.startsWith("-") || /\s/.test(host)) {
    throw new UsageError(`--ssh expects [USER@]HOST[:DIR], got "${spec}"`)
  }
  return { host, directory: directory === "" ? undefined : directory }
}

/** Quotes for the remote POSIX shell; a leading `~/` stays unquoted so it still expands. */
export function shellQuote(word: string): string {
  if (/^[\w@%+=:,./~-]+$/.test(word)) return word
  const home = word.match(/^~[\w.-]*\//)?.[0] ?? ""
  return home + `'${word.slice(home.length).replace(/'/g, `'\\''`)}'`
}
