/**
 * The sandbox's bound on processes and who is exempt from RLIMIT_NPROC: a leaf module, so that the
 * Landlock step (landlock-exec.ts) loads nothing more for it.
 */
import { readFileSync } from "node:fs"

export const MAX_PROCESSES = 1024

/**
 * Processes and threads the executor keeps for itself beyond what its scripts may start: its own
 * threads (JavaScriptCore starts some again after they idled) and script workers, its guardian,
 * its probes. Without them a script that fills the bound (a fork bomb) left the executor unable to
 * start a thread, and Bun aborts then.
 */
export const EXECUTOR_HEADROOM = 256

/** Set for the executor: the cgroup.procs file the processes of its scripts enter (tools/script-bound.ts). */
export const SCRIPTS_CGROUP_VARIABLE = "CLANKA_SCRIPTS_CGROUP"
/** Set for the executor: the RLIMIT_NPROC the processes of its scripts get, below its own. */
export const SCRIPTS_NPROC_VARIABLE = "CLANKA_SCRIPTS_NPROC"

/** The shell's words that set RLIMIT_NPROC to `value` (a number or a quoted variable): bash spells it -u, dash -p. */
export function nprocLimitShell(value: string): string {
  return `ulimit -u ${value} 2>/dev/null || ulimit -p ${value} 2>/dev/null`
}

/** uid 0 of the initial user namespace (its uid map maps every uid to itself): exempt from RLIMIT_NPROC. */
export function initialRoot(): boolean {
  if (process.getuid?.() !== 0) return false
  try {
    return /^\s*0\s+0\s+4294967295\s*$/.test(readFileSync("/proc/self/uid_map", "utf8"))
  } catch {
    return false
  }
}
