import type { ChildProcess } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { spawnChild } from "./spawn-child.ts"

/** The variable that marks every process an executor's tools start, and all their descendants. */
export const TAG_VARIABLE = "CLANKA_EXECUTOR_TAG"

/**
 * Finds and kills everything one executor's tools started, wherever it went. Process groups
 * (ProcessRegistry) do not hold a command that calls `setsid` or double-forks, but the
 * environment is inherited through both: every process carries `CLANKA_EXECUTOR_TAG=<tag>`, and
 * killAll() kills each process whose environment holds it (Linux: /proc/PID/environ).
 *
 * An executor that is killed outright (SIGKILL, the OOM killer) cannot clean up, so the first
 * process started also starts a guardian: a small `sh` in a session of its own, holding the read
 * end of a pipe only this process writes to. When this process dies the pipe closes, and the
 * guardian kills every tagged process and exits.
 */
export class ProcessGuard {
  readonly tag = crypto.randomUUID()
  private guardian: ChildProcess | undefined
  private armed = false

  /** The environment entry of every process started under this guard. */
  get env(): Record<string, string> {
    return { [TAG_VARIABLE]: this.tag }
  }

  /** Called before a process starts: makes sure the guardian is there. */
  arm(): void {
    if (this.armed || process.platform !== "linux") return
    this.armed = true
    const guardian = spawnChild("/bin/sh", ["-c", GUARDIAN, "clanka-guardian", `${TAG_VARIABLE}=${this.tag}`], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    })
    guardian.on("error", () => {})
    guardian.stdin!.on("error", () => {})
    // The guardian must not keep this process alive: it waits for this process, not the reverse.
    guardian.unref()
    ;(guardian.stdin as unknown as { unref?(): void }).unref?.()
    this.guardian = guardian
  }

  /** Kills every process that carries the tag; the guardian, told by its pipe, looks once more and exits. */
  killAll(): void {
    if (!this.armed) return
    const marker = Buffer.from(`\0${TAG_VARIABLE}=${this.tag}\0`)
    for (const name of listProcesses()) {
      const pid = Number(name)
      if (pid === process.pid) continue
      try {
        const environ = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${name}/environ`)])
        if (environ.includes(marker)) process.kill(pid, "SIGKILL")
      } catch {
        // gone, or not ours to read
      }
    }
    this.guardian?.stdin?.end()
  }
}

function listProcesses(): string[] {
  try {
    return readdirSync("/proc").filter((name) => /^\d+$/.test(name))
  } catch {
    return []
  }
}

// $1 is `NAME=TAG`. Waits for the pipe to close, then kills every process whose environment holds
// exactly that entry (grep -z reads NUL-separated entries; -x matches a whole one). One grep reads
// them all: one per process took seconds on a machine running thousands (a fork bomb elsewhere).
const GUARDIAN = `read -r _ 2>/dev/null
for f in $(grep -lzxF -e "$1" /proc/[0-9]*/environ 2>/dev/null); do
  p=\${f#/proc/}
  kill -9 "\${p%/environ}" 2>/dev/null
done
exit 0`
