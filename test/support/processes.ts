import { readFileSync } from "node:fs"

/**
 * Whether a process is still running. A killed process may linger as a zombie until PID 1 reaps
 * it (this machine's init does so late), and that counts as gone.
 */
export function isRunning(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"))
  } catch {
    return false
  }
}
