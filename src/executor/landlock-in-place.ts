/**
 * The Landlock step going on as the executor itself instead of executing it (landlock-exec.ts).
 * Landlock, seccomp and the capabilities bind only the thread that asks and the threads and
 * processes it starts afterwards. A Bun program starts threads of its own as it runs: the heap's
 * block warm-up and the allocator's scavenger wait long enough with the settings the step starts
 * with (landlock-step.ts ONE_THREAD_ENV), and the compiled binary's start-up policy
 * (scripts/build.ts) leaves the step's code to the interpreter, so no JIT thread starts either
 * (from source Bun runs one before the first line). Then the step's
 * one thread, restricted, is the whole process, and every thread the executor starts later (the
 * garbage collector's helpers, its thread pool, the scripts' workers) inherits the restriction.
 * That spares the sandbox a second start of Bun and an execve. Whether the process has one thread
 * is read from the kernel, not assumed: with more the step executes the executor as before.
 */
import { readdirSync } from "node:fs"
import { selfCommand } from "./self.ts"

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
