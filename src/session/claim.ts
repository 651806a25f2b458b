/**
 * A short claim on a transcript, held while a process checks that nobody is writing it and
 * writes its own `open` line: `<file>.lock`, made with O_EXCL. Held for milliseconds, so a claim
 * whose process is gone, or older than a few seconds, is stale and taken over.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs"
import { ClankaError, ExitCode } from "../errors.ts"
import { hostName } from "./store.ts"

const STALE_MS = 10_000
const WAIT_MS = 5_000

function stale(lock: string): boolean {
  try {
    if (Date.now() - statSync(lock).mtimeMs > STALE_MS) return true
    const [pid, host] = readFileSync(lock, "utf8").split(" ")
    // Only a process id of this host is asked after (kill(0) or kill(-1) would ask a group).
    if (host !== hostName() || !/^[1-9]\d{0,9}$/.test(pid ?? "")) return false
    process.kill(Number(pid), 0)
    return false
  } catch (error) {
    // ESRCH: its process is gone; ENOENT: released meanwhile (the next try creates it).
    return (error as NodeJS.ErrnoException).code === "ESRCH"
  }
}

export function claimFile(path: string): { release(): void } {
  const lock = `${path}.lock`
  const pause = new Int32Array(new SharedArrayBuffer(4))
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    try {
      const fd = openSync(lock, "wx", 0o600)
      writeSync(fd, `${process.pid} ${hostName()}`)
      closeSync(fd)
      return {
        release: () => {
          try {
            unlinkSync(lock)
          } catch {}
        },
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
    if (stale(lock)) {
      try {
        unlinkSync(lock)
      } catch {}
      continue
    }
    if (Date.now() > deadline) throw new ClankaError(`${lock} is held by another clanka; if none is running, delete it`, ExitCode.usage)
    Atomics.wait(pause, 0, 0, 20)
  }
}
