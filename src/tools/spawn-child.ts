import type { ChildProcess, SpawnOptions } from "node:child_process"

/**
 * node:child_process's spawn, loaded at the first process a tool starts: loading the module costs
 * an executor's start about a millisecond, before its first answer, and many runs start none.
 */
export function spawnChild(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return process.getBuiltinModule("node:child_process").spawn(command, args, options)
}
