/**
 * The standby: this clanka started by `run`, `exec` and `tool` as soon as their arguments are read,
 * before the executor's command line is known (the config read, the sandbox planned, the cgroup
 * made), so that Bun's start (~20 ms of CPU) goes on beside the agent's instead of after it. It
 * waits on its stdin for its orders, the argv and environment it would otherwise have been started
 * with, and then becomes that (standby-orders.ts): the Landlock step (landlock-exec.ts, which goes
 * on as the executor in place) or the executor itself (`--sandbox off`). bubblewrap's sandbox is a
 * process bwrap starts, so an executor under bwrap is never a standby.
 *
 * It starts with an environment of nothing but the step's settings (landlock-step.ts): none of the
 * agent's variables, its keys among them, are ever in it. Until its orders come it runs nothing
 * but its own modules, reads nothing but its stdin, a pipe only the agent holds, and can become
 * nothing but those two. An agent that never sends them (it chose bubblewrap, or failed first)
 * kills it; its end of the pipe closing ends the standby too.
 */
import type { Subprocess } from "bun"
import { LANDLOCK_EXEC, ONE_THREAD_ENV } from "./landlock-step.ts"
import { selfCommand } from "./self.ts"
import { STANDBY, STANDBY_COMMANDS } from "./standby-names.ts"

/** The commands a standby can become (the argv after this clanka's own command starts with one). */
export const STANDBY_BECOMES: readonly string[] = [LANDLOCK_EXEC, "executor"]

export type StandbyKind = "landlock" | "off"

let waiting: Subprocess<"pipe", "pipe", "pipe"> | undefined

/**
 * What the local executor of `command` will likely be, from its flags and environment alone:
 * the Landlock step (forced, or the backend where bubblewrap is not installed), the executor
 * unsandboxed (`--sandbox off`), or something a standby cannot become (undefined).
 */
export function standbyKind(command: string, args: Record<string, unknown>, env: Record<string, string | undefined> = process.env): StandbyKind | undefined {
  if (!STANDBY_COMMANDS.has(command) || process.platform !== "linux" || args.ssh !== undefined || args.executor !== undefined) return undefined
  if (args.sandbox === "off") return "off"
  const backend = (args["sandbox-backend"] as string | undefined) ?? (env.CLANKA_SANDBOX_BACKEND || "auto")
  if (backend === "landlock") return "landlock"
  // bwrapBinary() (sandbox-backend.ts) spelled here: that module would load node:fs first.
  return backend === "auto" && Bun.which(env.CLANKA_BWRAP || "bwrap") === null ? "landlock" : undefined
}

/** Starts the standby (one per process). */
export function startStandby(kind: StandbyKind): void {
  if (waiting) return
  try {
    waiting = Bun.spawn([...selfCommand(), STANDBY, kind], { stdio: ["pipe", "pipe", "pipe"], env: { ...ONE_THREAD_ENV } })
  } catch {
    return // the executor is spawned as before
  }
  // It keeps no process from ending, and is not left behind by one that ends without taking it.
  waiting.unref()
  process.once("exit", () => waiting?.kill("SIGKILL"))
}

/**
 * The standby, told to become `argv` with `env`, when it can (`argv` runs this clanka's Landlock
 * step or its executor, and it is still there); else undefined, and a standby that was waiting is
 * killed.
 */
export function takeStandby(argv: readonly string[], env: Record<string, string | undefined> | undefined): Subprocess<"pipe", "pipe", "pipe"> | undefined {
  const child = waiting
  waiting = undefined
  if (!child) return undefined
  const self = selfCommand()
  const ours = argv.length > self.length && self.every((part, at) => argv[at] === part) && STANDBY_BECOMES.includes(argv[self.length]!)
  if (!ours || env === undefined || child.exitCode !== null || child.signalCode !== null) {
    child.kill("SIGKILL")
    return undefined
  }
  child.stdin.write(ordersMessage(argv.slice(self.length), env))
  child.stdin.flush()
  child.ref()
  return child
}

/**
 * The orders on the wire: one JSON object after its length in bytes (4, big-endian). A variable
 * whose value is undefined is left out, as a spawn leaves it out (JSON has no undefined).
 */
export function ordersMessage(argv: readonly string[], env: Record<string, string | undefined>): Buffer {
  const body = Buffer.from(JSON.stringify({ argv, env }))
  const header = Buffer.alloc(4)
  header.writeUInt32BE(body.length)
  return Buffer.concat([header, body])
}
