/**
 * The standby's own side (standby.ts): it waits for its orders and takes their environment as its
 * own. Loaded first in a process that may yet become the Landlock step, which must still be its
 * process's only thread when it restricts itself: it imports next to nothing.
 */
import { readSync } from "node:fs"
import { LANDLOCK_EXEC } from "./landlock-step.ts"
import { STANDBY_BECOMES } from "./standby.ts"
import { STANDBY } from "./standby-names.ts"

/** Orders longer than this are refused unread: a command line and an environment are far less. */
const MAX_ORDERS = 1 << 20

/**
 * Loads what `kind` will run, then waits for the orders and takes their environment as its own.
 * Returns the arguments to run (after this clanka's own command), or an exit code: 0 when the
 * agent went away without orders, 2 for orders it cannot carry out (the reason on stderr).
 */
export async function awaitOrders(kind: string | undefined): Promise<string[] | number> {
  // The Landlock step's modules (its C library calls among them) load while the agent plans.
  if (kind === "landlock") await import("./landlock-exec.ts")
  let orders: { argv?: unknown; env?: unknown }
  try {
    const header = readExactly(4)
    if (header === undefined) return 0
    const length = header.readUInt32BE(0)
    if (length > MAX_ORDERS) return refuse(`its orders are ${length} bytes, more than ${MAX_ORDERS}`)
    const body = readExactly(length)
    if (body === undefined) return refuse("its orders ended early")
    orders = JSON.parse(body.toString("utf8"))
  } catch (error) {
    return refuse(`its orders cannot be read: ${(error as Error).message}`)
  }
  const { argv, env } = orders ?? {}
  if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === "string") || !STANDBY_BECOMES.includes(argv[0] as string)) {
    return refuse(`it becomes only the Landlock step (${LANDLOCK_EXEC}) or the executor`)
  }
  if (typeof env !== "object" || env === null || Array.isArray(env) || !Object.values(env).every((value) => typeof value === "string")) {
    return refuse("its orders carry no environment")
  }
  for (const name of Object.keys(process.env)) delete process.env[name]
  Object.assign(process.env, env)
  return argv as string[]
}

/** `length` bytes of stdin, blocking; undefined at its end before them. */
function readExactly(length: number): Buffer | undefined {
  const buffer = Buffer.alloc(length)
  let filled = 0
  while (filled < length) {
    const got = readSync(0, buffer, filled, length - filled, null)
    if (got === 0) return undefined
    filled += got
  }
  return buffer
}

function refuse(why: string): number {
  process.stderr.write(`clanka: ${STANDBY}: ${why}\n`)
  return 2
}
