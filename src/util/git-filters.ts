/**
 * Git runs a file's clean filter when the file's times differ from the index's (git status, git
 * diff against the work tree). A filter driver the repository's own config defines (`local` and
 * `worktree` scope) is a command a repository unpacked from an archive, or made by a script in a
 * sandbox, brings along; clanka's git runs outside the sandbox must not run it. The user's own
 * drivers (git-lfs) stay.
 */

/** `git config --show-scope -z --get-regexp '^filter\.'`: the command that lists the drivers. */
export const FILTER_LISTING = ["config", "--show-scope", "-z", "--get-regexp", "^filter\\."]

/**
 * The environment that turns off the repository's own filter drivers, from FILTER_LISTING's
 * output: GIT_CONFIG_* entries (a driver's name may hold "="), after those `env` holds already.
 */
export function repositoryFiltersOff(listing: string, env: Record<string, string | undefined> = process.env): Record<string, string> {
  const names = new Set<string>()
  const fields = listing.split("\0")
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] !== "local" && fields[i] !== "worktree") continue
    const key = fields[i + 1]!.split("\n")[0]!
    names.add(key.slice("filter.".length, key.lastIndexOf(".")))
  }
  const keys = [...names].flatMap((name) => ["clean", "smudge", "process"].map((what) => `filter.${name}.${what}`))
  if (keys.length === 0) return {}
  const first = Number(env.GIT_CONFIG_COUNT) || 0
  const off: Record<string, string> = { GIT_CONFIG_COUNT: String(first + keys.length) }
  keys.forEach((key, i) => {
    off[`GIT_CONFIG_KEY_${first + i}`] = key
    off[`GIT_CONFIG_VALUE_${first + i}`] = ""
  })
  return off
}
