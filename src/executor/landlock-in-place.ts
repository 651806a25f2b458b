/**
 * The Landlock step going on as the executor itself instead of executing it (landlock-exec.ts).
 * Landlock, seccomp and the capabilities bind only the thread that asks and the threads and
 * processes it starts afterwards. A Bun program starts threads of its own as it runs: the heap's
 * block warm-up and the allocator's scavenger wait long enough with the settings below, and the
 * compiled binary's start-up policy (scripts/build.ts) leaves the step's code to the interpreter,
 * so no JIT thread starts either (from source Bun runs one before the first line). Then the step's
 * one thread, restricted, is the whole process, and every thread the executor starts later (the
 * garbage collector's helpers, its thread pool, the scripts' workers) inherits the restriction.
 * That spares the sandbox a second start of Bun and an execve. Whether the process has one thread
 * is read from the kernel, not assumed: with more the step executes the executor as before.
 */
import { readdirSync } from "node:fs"
import { selfCommand } from "./self.ts"

/**
 * In the step's environment, set by whoever starts it (the step removes them from what the
 * executor's commands get): the heap's block warm-up thread starts after 256 blocks (4 MiB) rather
 * than 64, which the step alone reaches; the allocator purges freed memory on the thread that
 * frees it, as upstream mimalloc does, rather than on a thread of its own.
 */
export const ONE_THREAD_ENV: Readonly<Record<string, string>> = { BUN_JSC_warmUpMarkedBlockStartAfterBlocks: "256", MIMALLOC_SCAVENGER: "0" }

/** The threads of this process, as the kernel lists them. */
export function threadCount(): number {
  return readdirSync("/proc/self/task").length
}

/** The arguments of `clanka executor …` when `command` runs this same clanka's executor. */
export function ownExecutorArgs(command: readonly string[]): string[] | undefined {
  const self = selfCommand()
  if (command.length <= self.length || !self.every((part, at) => command[at] === part)) return undefined
  return command[self.length] === "executor" ? command.slice(self.length) : undefined
}
