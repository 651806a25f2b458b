/**
 * The Landlock sandbox's private temporary directory: made for each sandbox under the host's
 * temporary directory (mode 0700), the only place there a script may write (its TMPDIR). Removed
 * when the sandbox is released, else when this process exits; one left by a clanka that was
 * killed outright is removed by the next one.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { processAlive } from "../util/process-alive.ts"

const PREFIX = "clanka-sandbox-"
const live = new Set<string>()
let exitHook = false

/** A new private directory, owned by this process until released. */
export function makePrivateTmp(): string {
  let dir: string | undefined
  // TMPDIR may name a directory this user cannot write (sudo, setpriv): /tmp then.
  for (const base of [...new Set([process.getBuiltinModule("node:os").tmpdir(), "/tmp"])]) {
    sweep(base)
    try {
      dir = mkdtempSync(join(base, `${PREFIX}${process.pid}-`))
      break
    } catch (error) {
      if (base === "/tmp") throw error
    }
  }
  live.add(dir!)
  if (!exitHook) {
    exitHook = true
    process.on("exit", () => {
      for (const dir of live) remove(dir)
    })
  }
  return dir!
}

/** Removes the private directories named in `argv` (a sandbox's command line) that this process made. */
export function releasePrivateTmps(argv: readonly string[]): void {
  for (const dir of live) {
    if (argv.some((arg) => arg.includes(dir))) {
      remove(dir)
      live.delete(dir)
    }
  }
}

function remove(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 2 })
  } catch {
    // a file a script left read-only in a directory it made so: the next sweep tries again
  }
}

function sweep(base: string): void {
  let names: string[]
  try {
    names = readdirSync(base)
  } catch {
    return
  }
  for (const name of names) {
    const pid = Number(name.match(/^clanka-sandbox-(\d+)-/)?.[1])
    if (pid && pid !== process.pid && !processAlive(pid)) remove(join(base, name))
  }
}
