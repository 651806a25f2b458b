/**
 * The sandbox's bound on processes and who is exempt from RLIMIT_NPROC: a leaf module, so that the
 * Landlock step (landlock-exec.ts) loads nothing more for it.
 */
import { readFileSync } from "node:fs"

export const MAX_PROCESSES = 1024

/** uid 0 of the initial user namespace (its uid map maps every uid to itself): exempt from RLIMIT_NPROC. */
export function initialRoot(): boolean {
  if (process.getuid?.() !== 0) return false
  try {
    return /^\s*0\s+0\s+4294967295\s*$/.test(readFileSync("/proc/self/uid_map", "utf8"))
  } catch {
    return false
  }
}
