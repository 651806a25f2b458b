import { readdirSync, readFileSync } from "node:fs"

/**
 * Whether a process is still running. A killed process may linger as a zombie until PID 1 reaps
 * it (this machine's init does so late), or show as dead (`X`) while the kernel releases it (seen
 * on a busy machine, right after its pid namespace was torn down): both count as gone.
 */
export function isRunning(pid: number): boolean {
  try {
    return !/^State:\s+[ZX]/m.test(readFileSync(`/proc/${pid}/status`, "utf8"))
  } catch {
    return false
  }
}

/**
 * The pid of a running process whose command line is exactly `argv` (e.g. a `sleep 205.3` whose
 * duration no other process uses), as this machine sees it: a process in the executor's pid
 * namespace writes its own pid there, which is not the one here.
 */
export function findProcess(argv: string[]): number | undefined {
  const wanted = argv.join("\0") + "\0"
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8") === wanted && isRunning(Number(name))) return Number(name)
    } catch {
      // gone
    }
  }
  return undefined
}

/**
 * A sleep's duration (seconds, as text) for findProcess to look for: `base` with this test run's
 * pid appended to its decimals. Two test runs at once on one machine (CI jobs, developers) would
 * otherwise see each other's sleepers, and a sandbox without a pid namespace of its own (Landlock)
 * lets a script's `ps` see them too.
 */
export function ownSleep(base: string): string {
  return `${base}${base.includes(".") ? "" : "."}${process.pid}`
}
