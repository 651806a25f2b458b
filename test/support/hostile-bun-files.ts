import { writeFileSync } from "node:fs"
import { join } from "node:path"

/**
 * Gives `project` what Bun reads from the directory it starts in: a .env and a .env.local (with
 * `env` added to the .env) and a bunfig.toml whose preload leaves a file `preloaded-PID` behind.
 * Returns the names of the files made, sorted.
 */
export function hostileBunFiles(project: string, env: Record<string, string> = {}): string[] {
  const dotenv = Object.entries({ CLANKA_PROBE: "from-dotenv", ...env }).map(([name, value]) => `${name}=${value}\n`)
  writeFileSync(join(project, ".env"), dotenv.join(""))
  writeFileSync(join(project, ".env.local"), "CLANKA_PROBE_LOCAL=from-dotenv-local\n")
  writeFileSync(join(project, "bunfig.toml"), 'preload = ["./preload.js"]\n')
  writeFileSync(join(project, "preload.js"), `require("node:fs").writeFileSync(${JSON.stringify(join(project, "preloaded-"))} + process.pid, "")\n`)
  return [".env", ".env.local", "bunfig.toml", "preload.js"]
}

/** A script that prints what its commands see of the two files' variables ("unset" for each not set). */
export const PROBE_SCRIPT = 'console.log(await bash({ command: "printf %s \\"${CLANKA_PROBE:-unset} ${CLANKA_PROBE_LOCAL:-unset}\\"" }))'
