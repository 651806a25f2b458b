/**
 * What names a project's trust without reading the store (trust.ts, which checks the store with
 * valibot): the agent needs these before it starts its sandbox, the store only when a project has
 * config files.
 */
import { resolve } from "node:path"
import { realDirectory, type Env } from "../session/store.ts"
import { envFlag } from "../util/env-flag.ts"

/** `--trust-project` for every run of this shell: CLANKA_TRUST_PROJECT set to anything but empty, 0 or false. */
export function trustProjectFromEnv(env: Env = process.env): boolean {
  return envFlag(env.CLANKA_TRUST_PROJECT)
}

/** The directory a record is kept under: its real path (as given when it does not exist). */
export function trustKey(directory: string): string {
  return realDirectory(resolve(directory))
}
