/**
 * Hooks: the user's shell commands run on the agent's side at points of a run (config key
 * `hooks`, from the user's config and a trusted project's only). Each gets one JSON object on
 * stdin and has `timeoutSec` (default 30) to finish. A `preExecute` hook that exits 2 blocks the
 * script: it does not run and the model gets `[blocked by a hook] <the hook's stderr>`. Any other
 * failure (another non-zero exit, a time-out) is a warning and the run goes on. Each hook that ran
 * is reported by a `Hook` event.
 *
 * Because one script carries a whole turn's tool calls, one preExecute hook sees everything the
 * model is about to do at once.
 */
import { spawn } from "node:child_process"
import type { ContentPart } from "./events.ts"
import { seconds } from "../util/duration.ts"
import { fileGuard } from "./hook-files.ts"

export const HOOK_NAMES = ["sessionStart", "preExecute", "postExecute", "stop"] as const
export type HookName = (typeof HOOK_NAMES)[number]

export interface HookCommand {
  command: string
  timeoutSec?: number
}

/** The `hooks` config value: per point, the commands, run one after another. */
export type HookConfig = Partial<Record<HookName, (string | HookCommand)[]>>

export const DEFAULT_HOOK_TIMEOUT_SEC = 30
/** Exit code of a preExecute hook that blocks the script. */
export const BLOCK_EXIT_CODE = 2
/** At most this much of a hook's stderr is kept (for the block message and the warning). */
const STDERR_LIMIT = 16 * 1024

export type HookEvent = Extract<ContentPart, { _tag: "Hook" }>

/** What the agent hands the loop: runs a point's hooks, reporting each through `emit`. */
export interface HookRunner {
  has(name: HookName): boolean
  /** The reason the first blocking hook gave, or undefined when nothing blocked. */
  run(name: HookName, payload: Record<string, unknown>, emit: (part: ContentPart) => void, signal?: AbortSignal): Promise<{ blocked?: string }>
}

export interface HookOptions {
  /** The directory the commands run in (the project's). */
  cwd: string
  env?: Record<string, string | undefined>
}

export function createHooks(config: HookConfig, options: HookOptions): HookRunner {
  const commands = (name: HookName): HookCommand[] => (config[name] ?? []).map((entry) => (typeof entry === "string" ? { command: entry } : entry))
  // Taken now, before any script ran: the files each command names, as they are.
  const guards = new Map<string, () => string | undefined>()
  for (const name of HOOK_NAMES) for (const { command } of commands(name)) if (!guards.has(command)) guards.set(command, fileGuard(command, options.cwd))
  return {
    has: (name) => commands(name).length > 0,
    async run(name, payload, emit, signal) {
      for (const hook of commands(name)) {
        const changed = guards.get(hook.command)?.()
        const result =
          changed === undefined
            ? await runOne(hook, JSON.stringify({ event: name, ...payload }), options, signal)
            : refused(`${changed} changed since the run started (a script may have written it); it is not run outside the sandbox`)
        const blocked = name === "preExecute" && result.exitCode === BLOCK_EXIT_CODE
        const warning = blocked ? undefined : failure(name, hook, result)
        emit({
          _tag: "Hook",
          name,
          command: hook.command,
          exitCode: result.exitCode,
          durationMs: result.durationMs,
          blocked,
          ...(warning === undefined ? {} : { warning }),
        })
        if (blocked) return { blocked: result.stderr.trim() || "(the hook gave no reason)" }
      }
      return {}
    },
  }
}

interface HookResult {
  /** null: it did not exit by itself (timed out, stopped, could not start). */
  exitCode: number | null
  stderr: string
  durationMs: number
  timedOut: boolean
  startError?: string
}

/** A hook not started: it failed as a command that cannot start does. */
function refused(reason: string): HookResult {
  return { exitCode: null, stderr: "", durationMs: 0, timedOut: false, startError: reason }
}

/** One line saying what went wrong, or undefined when the hook succeeded. */
function failure(name: HookName, hook: HookCommand, result: HookResult): string | undefined {
  if (result.exitCode === 0) return undefined
  const what = `${name} hook ${JSON.stringify(hook.command)}`
  if (result.startError !== undefined) return `${what} could not start: ${result.startError}`
  const reason = result.stderr.trim().split("\n")[0]?.trim()
  const detail = reason ? `: ${reason}` : ""
  if (result.timedOut) return `${what} timed out after ${seconds((hook.timeoutSec ?? DEFAULT_HOOK_TIMEOUT_SEC) * 1000)}${detail}`
  if (result.exitCode === null) return `${what} was stopped${detail}`
  return `${what} exited ${result.exitCode}${detail}`
}

/**
 * Runs a command with `sh -c` in a process group of its own, so a time-out (or the run being
 * stopped) kills what it started too. stdout is discarded; stderr is kept (bounded).
 */
function runOne(hook: HookCommand, input: string, options: HookOptions, signal?: AbortSignal): Promise<HookResult> {
  const started = performance.now()
  const timeoutMs = (hook.timeoutSec ?? DEFAULT_HOOK_TIMEOUT_SEC) * 1000
  return new Promise((resolve) => {
    let stderr = ""
    let timedOut = false
    let exitCode: number | null = null
    let done = false
    const child = spawn("/bin/sh", ["-c", hook.command], {
      cwd: options.cwd,
      env: (options.env ?? process.env) as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["pipe", "ignore", "pipe"],
    })
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
      } catch {
        // Already gone.
      }
    }
    const finish = (startError?: string) => {
      if (done) return
      done = true
      clearTimeout(timer)
      child.stderr!.destroy()
      signal?.removeEventListener("abort", kill)
      resolve({
        exitCode: timedOut || startError !== undefined ? null : exitCode,
        stderr: stderr.toWellFormed(),
        durationMs: Math.round(performance.now() - started),
        timedOut,
        ...(startError === undefined ? {} : { startError }),
      })
    }
    const timer = setTimeout(() => {
      timedOut = true
      kill()
      // A process that left its group may hold stderr open: do not wait for it.
      setTimeout(() => finish(), 100)
    }, timeoutMs)
    signal?.addEventListener("abort", kill, { once: true })
    child.stderr!.setEncoding("utf8")
    child.stderr!.on("data", (chunk: string) => {
      if (stderr.length < STDERR_LIMIT) stderr += chunk.slice(0, STDERR_LIMIT - stderr.length)
    })
    // A hook that does not read its input must not fail the write (EPIPE).
    child.stdin!.on("error", () => {})
    child.stdin!.end(input)
    child.on("error", (error) => finish(error.message))
    child.on("exit", (code) => {
      exitCode = code
      // Something it started in the background may hold stderr open: the end is not waited for long.
      setTimeout(() => finish(), 100)
    })
    child.on("close", () => finish())
  })
}
