import { spawn, type ChildProcess } from "node:child_process"
import { WITHHELD_KEYS } from "../executor/executor-env.ts"
import type { ProcessGuard } from "./process-guard.ts"

/**
 * Child processes started by tools during one execute. Each is spawned `detached`, so it leads a
 * process group of its own, and killAll() signals the whole group: grandchildren die too, and
 * so do jobs a command put in the background, which outlive the command that started them.
 */
export class ProcessRegistry {
  /** `guard` tags every process started here, so that the executor's end reaches them all. */
  constructor(private readonly guard?: ProcessGuard) {}

  /** Process group ids; a group is kept after its leader exits while members may remain. */
  private readonly groups = new Set<number>()
  private readonly live = new Set<ChildProcess>()

  /**
   * Starts a process for a tool: in a process group of its own (so killing the group reaches
   * its children), without the agent's API keys, registered here.
   */
  spawn(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): ChildProcess {
    this.guard?.arm()
    const child = spawn(command, args, {
      cwd: options.cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: childEnv({ ...options.env, ...this.guard?.env }),
    })
    this.add(child)
    return child
  }

  add(child: ChildProcess): void {
    if (child.pid === undefined) return
    const group = child.pid
    this.groups.add(group)
    this.live.add(child)
    child.once("exit", () => {
      this.live.delete(child)
      if (!groupAlive(group)) this.groups.delete(group)
    })
  }

  /** Registered processes still running (leaders only). */
  get size(): number {
    return this.live.size
  }

  /** Whether anything this registry started may still be running. */
  get empty(): boolean {
    for (const group of this.groups) if (!groupAlive(group)) this.groups.delete(group)
    return this.groups.size === 0
  }

  /** Kills every registered process group. */
  killAll(signal: NodeJS.Signals = "SIGKILL"): void {
    for (const group of this.groups) {
      try {
        process.kill(-group, signal)
      } catch {
        // already gone
      }
    }
    for (const child of this.live) if (child.exitCode === null) killGroup(child, signal)
    this.groups.clear()
    this.live.clear()
  }
}

/**
 * The environment for a process a tool starts: this process's, less the agent's own keys (a
 * repository's tests, say, do not inherit them).
 */
function childEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, ...extra }
  for (const name of WITHHELD_KEYS) delete env[name]
  return env
}

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0)
    return true
  } catch {
    return false
  }
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): void {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    try {
      child.kill(signal)
    } catch {
      // already gone
    }
  }
}
