import { lstat, readdir } from "node:fs/promises"
import { basename, dirname, join } from "node:path"

/**
 * The path as it is on disk when only the Unicode normalization of its name differs: a repository
 * from macOS names `café.md` with a decomposed é (NFD), a model writes it composed (NFC), and on
 * Linux the two are different files. Without this readFile answered null for a file that `ls`
 * showed, and writeFile made a second file of the same visible name beside it.
 */
export async function sameNameOnDisk(target: string): Promise<string> {
  const name = basename(target)
  // Plain ASCII has one form only: no directory to read.
  if (/^[\x00-\x7f]*$/.test(name)) return target
  if (await lstat(target).then(() => true, () => false)) return target
  const composed = name.normalize("NFC")
  const entries = await readdir(dirname(target)).catch(() => [] as string[])
  const twins = entries.filter((entry) => entry !== name && entry.normalize("NFC") === composed)
  return twins.length === 1 ? join(dirname(target), twins[0]!) : target
}
