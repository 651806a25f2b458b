import type { ChildProcess } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { WITHHELD_KEYS } from "../executor/executor-env.ts"
import type { ProcessGuard } from "./process-guard.ts"
import { spawnChild } from "./spawn-child.ts"
import { BOUND_VARIABLES, underScriptBound } from "./script-bound.ts"

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
    const [program, argv] = underScriptBound(command, args)
    const child = spawnChild(program, argv, {
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

  /** Kills every registered process group; returns the groups, for `untilGone`. */
  killAll(signal: NodeJS.Signals = "SIGKILL"): number[] {
    const groups = [...this.groups]
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
    return groups
  }
}

/**
 * Resolves once no process of `groups` runs any more (a killed one that is a zombie or being
 * released counts as gone), or after `waitMs`. A signal is delivered when the process is next
 * scheduled: on a busy machine a killed process can look alive for a while, and an executor that
 * says it has ended what it started must not exit before then.
 */
export async function untilGone(groups: number[], waitMs = 1000): Promise<void> {
  if (groups.length === 0) return
  const deadline = Date.now() + waitMs
  const wanted = new Set(groups)
  while (Date.now() < deadline && anyRunning(wanted)) await Bun.sleep(5)
}

function anyRunning(groups: Set<number>): boolean {
  if (process.platform !== "linux") return [...groups].some(groupAlive)
  let names: string[]
  try {
    names = readdirSync("/proc")
  } catch {
    return [...groups].some(groupAlive)
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    try {
      // "PID (COMM) STATE PPID PGRP …": COMM may hold spaces and parentheses, so read after the last ")".
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (groups.has(Number(pgrp)) && state !== "Z" && state !== "X") return true
    } catch {
      // gone meanwhile
    }
  }
  return false
}

/**
 * The environment for a process a tool starts: this process's, less the agent's own keys (a
 * repository's tests, say, do not inherit them).
 */
function childEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, ...extra }
  for (const name of [...WITHHELD_KEYS, ...BOUND_VARIABLES]) delete env[name]
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
