import type { ChildProcess } from "node:child_process"

/**
 * Child processes started by tools during one execute. Each is spawned `detached`, so it leads a
 * process group of its own, and killAll() signals the whole group: grandchildren die too.
 */
export class ProcessRegistry {
  private readonly children = new Set<ChildProcess>()

  add(child: ChildProcess): void {
    this.children.add(child)
    child.once("exit", () => this.children.delete(child))
  }

  get size(): number {
    return this.children.size
  }

  /** Kills every registered process group. */
  killAll(signal: NodeJS.Signals = "SIGKILL"): void {
    for (const child of this.children) killGroup(child, signal)
    this.children.clear()
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
