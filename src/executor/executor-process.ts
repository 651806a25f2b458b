/**
 * An executor's process, spawned apart from the protocol spoken with it (remote.ts): the agent
 * starts its local sandbox before it loads the wire's schemas, which it needs only for the answer.
 */
import type { Subprocess } from "bun"
import { ExecutorLostError } from "../errors.ts"
import { errorMessage } from "../util/error-message.ts"
import { takeStandby } from "./standby.ts"

export interface SpawnedExecutor {
  child: Subprocess<"pipe", "pipe", "pipe">
  /** With `admit`: settles once the sandbox may run; rejects when it may not (process-bound.ts). */
  admitted?: Promise<void>
}

/**
 * Spawns `argv` (with fds 3 and 4 for `admit`, which starts at once, beside bwrap), or has the
 * standby become it (standby.ts).
 */
export function spawnExecutor(argv: string[], env: Record<string, string | undefined> | undefined, admit?: (child: Subprocess) => Promise<void>): SpawnedExecutor {
  // Bun's spawn: node:child_process takes ~5 ms of JavaScript before the process even starts.
  let child: Subprocess<"pipe", "pipe", "pipe">
  try {
    const stdio: ["pipe", "pipe", "pipe", ..."pipe"[]] = admit ? ["pipe", "pipe", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"]
    child = takeStandby(argv, env) ?? Bun.spawn(argv, { stdio, env: env ?? process.env })
  } catch (error) {
    const program = argv[0]
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT"
    throw new ExecutorLostError(missing ? `cannot run ${program}: not found; install it or check PATH` : `cannot run ${program}: ${errorMessage(error)}`)
  }
  const admitted = admit?.(child)
  // Awaited by whoever speaks to the child; until then a failure is not an unhandled rejection.
  admitted?.catch(() => {})
  return admitted ? { child, admitted } : { child }
}
