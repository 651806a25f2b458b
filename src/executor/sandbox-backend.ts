/**
 * Which OS sandbox runs the executor: on Linux bubblewrap where it can create its namespaces,
 * else Landlock with seccomp, else none (and then the default mode refuses to run, see
 * os-sandbox.ts); on macOS sandbox-exec. `--sandbox-backend` (CLANKA_SANDBOX_BACKEND) forces one.
 */
import { errorMessage } from "../util/error-message.ts"
import { existsSync } from "node:fs"
import type { SandboxBackend } from "../contract.ts"
import { UsageError } from "../errors.ts"

export type { SandboxBackend }

/** What `--sandbox-backend` takes. */
export const BackendRequests = ["auto", "bwrap", "landlock"] as const
export type BackendRequest = (typeof BackendRequests)[number]

export const INSTALL_HINT = "install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap)"

/** bubblewrap's command: looked up on PATH (CLANKA_BWRAP names another). */
export function bwrapBinary(): string {
  return process.env.CLANKA_BWRAP || "bwrap"
}

/** A sandbox with the namespaces the real one makes (its own user, pid and network namespaces). */
const PROBE_ARGS = ["--unshare-user", "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--die-with-parent", "true"]

let bwrapProbe: string | null | undefined
/**
 * Why bubblewrap cannot run here, or undefined when it can. Without `probe`, only whether it is
 * installed (a start that then fails in bwrap falls back, see connect.ts); with it, a run of bwrap
 * that creates the namespaces the sandbox needs (about 5 ms).
 */
export function bwrapMissing(probe = true): string | undefined {
  const name = `bubblewrap (${bwrapBinary()})`
  if (process.platform !== "linux") return `${name} is Linux only`
  if (Bun.which(bwrapBinary()) === null) return `${name} is not installed`
  if (!probe) return undefined
  if (bwrapProbe === undefined) {
    bwrapProbe = probeBwrap()
  }
  return bwrapProbe === null ? undefined : `${name} cannot run here (${bwrapProbe})`
}

/** null when a run of bwrap made the sandbox's namespaces, else why it could not. */
function probeBwrap(): string | null {
  try {
    const run = Bun.spawnSync([bwrapBinary(), ...PROBE_ARGS], { stdin: "ignore", stdout: "ignore", stderr: "pipe", timeout: 5000 })
    return run.exitCode === 0 ? null : (bwrapReason(run.stderr.toString()) ?? "it exited with an error")
  } catch (error) {
    return errorMessage(error)
  }
}

/**
 * Whether bubblewrap creates the namespaces the sandbox needs here (a run of about 5 ms), without
 * blocking: told before a guess that depends on it (the agent's early first request), so that a
 * bwrap that will fail (AppArmor) does not make a request that must be made again. A start is
 * remembered for this bwrap, user and boot (probe-cache.ts) until a real start fails.
 */
export async function bwrapStarts(): Promise<boolean> {
  const cache = await import("./probe-cache.ts")
  const key = bwrapKey(cache)
  if (key !== undefined && cache.remembered("bwrap", key) === "starts") return true
  let starts = false
  try {
    const run = Bun.spawn([bwrapBinary(), ...PROBE_ARGS], { stdio: ["ignore", "ignore", "ignore"] })
    starts = (await run.exited) === 0
  } catch {
    // not installed, not executable
  }
  if (starts && key !== undefined) cache.remember("bwrap", key, "starts")
  return starts
}

/** A real start of bubblewrap failed: the next early request waits for a probe again. */
export async function forgetBwrapStarts(): Promise<void> {
  const { forget } = await import("./probe-cache.ts")
  forget("bwrap")
}

function bwrapKey(cache: typeof import("./probe-cache.ts")): string | undefined {
  const program = cache.programKey(bwrapBinary())
  const boot = cache.bootId()
  return program === undefined || boot === undefined ? undefined : `${program}:${boot}:${process.getuid?.()}`
}

/** bubblewrap's own complaint (`bwrap: …`) in what a failed start printed, without its last full stop. */
export function bwrapReason(output: string): string | undefined {
  return output.match(/bwrap: ([^;\n]*)/)?.[1]?.trim().replace(/\.$/, "")
}

/**
 * The complaint is about a path that changed between the sandbox's plan and bubblewrap's mounts
 * (a host socket to cover that was removed meanwhile): bubblewrap works; a new plan will do.
 */
export function bwrapRaced(reason: string): boolean {
  return /^Can't (create file at|mkdir|find source path) /.test(reason)
}

/** Starts of bubblewrap whose plan went stale (bwrapRaced) before it counts as failing here. */
export const BWRAP_STALE_ATTEMPTS = 5

/** Why Landlock cannot be had here, or undefined when it can (loads the FFI only on Linux). */
export async function landlockMissing(): Promise<string | undefined> {
  if (process.platform !== "linux") return "Landlock is Linux only"
  const { landlockUnavailable } = await import("./landlock-ruleset.ts")
  const why = landlockUnavailable()
  return why && `Landlock cannot run here (${why})`
}

/**
 * The backend for a request, or a UsageError that says why none can run (`mode`: the --sandbox
 * value, for the message). Without `probe`, bubblewrap is taken when installed.
 */
export async function chooseBackend(request: BackendRequest, mode: string, probe: boolean): Promise<SandboxBackend> {
  if (process.platform === "darwin") {
    if (request !== "auto") throw forcedFailed(request, "it runs on Linux only; macOS has sandbox-exec")
    if (existsSync("/usr/bin/sandbox-exec")) return "sandbox-exec"
    throw noSandbox(mode, ["sandbox-exec is not available"])
  }
  const reasons: string[] = []
  if (request !== "landlock") {
    const why = bwrapMissing(probe)
    if (!why) return "bwrap"
    if (request === "bwrap") throw forcedFailed("bwrap", why)
    reasons.push(why)
  }
  const why = await landlockMissing()
  if (!why) return "landlock"
  if (request === "landlock") throw forcedFailed("landlock", why)
  throw noSandbox(mode, [...reasons, why])
}

/** The error when no backend can run: one line that names --sandbox off. */
export function noSandbox(mode: string, reasons: string[]): UsageError {
  const what = mode === "auto" ? "scripts run in the OS sandbox by default" : `--sandbox ${mode} needs the OS sandbox`
  const hint = process.platform === "linux" ? `${INSTALL_HINT}, or pass --sandbox off to run scripts without it` : "pass --sandbox off to run scripts without it"
  return new UsageError(`${what}, but ${reasons.join(" and ")}; ${hint}`)
}

/** The error when the forced backend cannot run. */
export function forcedFailed(backend: BackendRequest, why: string): UsageError {
  return new UsageError(`--sandbox-backend ${backend} cannot start: ${why}; pass --sandbox-backend auto to take what runs here, or --sandbox off`)
}
