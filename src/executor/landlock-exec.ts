/**
 * `clanka __landlock-exec PLAN.json [--cgroup DIR] -- COMMAND…`: the step that starts the Landlock
 * backend's sandbox; with `--cgroup` it first moves itself into that pids cgroup's `exec` child,
 * and lets COMMAND write the `scripts` child's cgroup.procs (process-bound.ts). Landlock and
 * seccomp bind only the thread that asks, and execve leaves only that thread: so this thread drops
 * every capability, sets no_new_privs, restricts itself (landlock-ruleset.ts,
 * landlock-seccomp.ts) and then executes COMMAND, which with all it starts and every thread it
 * makes stays in the sandbox. Nothing runs between the restriction and the execve. When COMMAND
 * is this clanka's executor and this thread is the process's only one, the process itself goes on
 * as the executor instead (landlock-in-place.ts).
 */
import { closeSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { clearCapabilities, execve, prctl, setrlimit, setsid, syscall } from "./landlock-ffi.ts"
import type { LandlockPlan } from "./landlock-plan.ts"
import { ownExecutorArgs, threadCount } from "./landlock-in-place.ts"
import { ONE_THREAD_ENV } from "./landlock-step.ts"
import { restrictSelf } from "./landlock-ruleset.ts"
import { installSeccomp } from "./landlock-seccomp.ts"
import { EXECUTOR_HEADROOM, initialRoot, MAX_PROCESSES, SCRIPTS_CGROUP_VARIABLE, SCRIPTS_NPROC_VARIABLE } from "./process-limit.ts"

const PR_SET_PDEATHSIG = 1
const PR_CAPBSET_DROP = 24
const PR_SET_NO_NEW_PRIVS = 38
const PR_CAP_AMBIENT = 47
const PR_CAP_AMBIENT_CLEAR_ALL = 4
const SIGKILL = 9
const RLIMIT_NPROC = 6
const SYS_CLOSE_RANGE = 436
const CLOSE_RANGE_CLOEXEC = 1 << 2

/**
 * Runs the step. It returns on failure, with the exit code (the reason is on stderr), or with the
 * executor's arguments when this process, now inside the sandbox, is to run the executor itself.
 */
export function landlockExec(args: readonly string[]): number | string[] {
  const dash = args.indexOf("--")
  const command = args.slice(dash + 1)
  const cgroup = args[1] === "--cgroup" ? args[2] : undefined
  if (dash !== (cgroup === undefined ? 1 : 3) || command.length === 0) return fail("usage: clanka __landlock-exec PLAN.json [--cgroup DIR] -- COMMAND [ARG...]", 2)
  if (cgroup !== undefined) {
    // First of all: whatever this process starts from here on is bound by the cgroup.
    try {
      writeFileSync(`${cgroup}/exec/cgroup.procs`, String(process.pid))
    } catch (error) {
      process.stderr.write(`clanka: cannot enter the pids cgroup ${cgroup}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`)
      return 1
    }
  }
  let plan: LandlockPlan
  try {
    plan = JSON.parse(readFileSync(args[0]!, "utf8")) as LandlockPlan
    rmSync(args[0]!)
  } catch (error) {
    return fail(`cannot read its plan: ${(error as Error).message}`, 1)
  }
  const program = command[0]!.includes("/") ? command[0]! : Bun.which(command[0]!)
  if (!program) return fail(`${command[0]}: command not found`, 127)
  try {
    process.chdir(plan.cwd)
  } catch {
    return fail(`cannot enter ${plan.cwd}`, 1)
  }
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value
  Object.assign(env, plan.env, { TMPDIR: plan.tmp })
  // The one file of the cgroup a sandbox may write: where its scripts' processes go.
  const scriptsProcs = cgroup === undefined ? undefined : `${cgroup}/scripts/cgroup.procs`
  if (scriptsProcs) env[SCRIPTS_CGROUP_VARIABLE] = scriptsProcs
  // The executor's own settings (landlock-in-place.ts), not its commands'.
  for (const name of Object.keys(ONE_THREAD_ENV)) delete env[name]
  // Read before anything is restricted: a thread that already runs would keep what this one drops.
  const executorArgs = ownExecutorArgs(command)
  const inPlace = executorArgs && threadCount() === 1 ? executorArgs : undefined

  // Gone with its parent (the agent), as bwrap's --die-with-parent; a session of its own, so no
  // terminal is the sandbox's controlling one (bwrap's --new-session).
  prctl(PR_SET_PDEATHSIG, SIGKILL)
  // A process group leader cannot start a session: then it must have no terminal to read keys from.
  if (setsid() < 0 && hasTerminal()) return fail("it cannot leave the terminal's session (it leads a process group); start it from a shell script or with setsid", 1)
  const limit = processLimit()
  if (limit !== undefined) {
    setrlimit(RLIMIT_NPROC, limit + EXECUTOR_HEADROOM, limit + EXECUTOR_HEADROOM)
    env[SCRIPTS_NPROC_VARIABLE] = String(limit)
  }
  const dropped = dropCapabilities()
  if (dropped) return fail(dropped, 1)
  if (prctl(PR_SET_NO_NEW_PRIVS, 1) < 0) return fail("cannot set no_new_privs", 1)
  try {
    restrictSelf({ rules: scriptsProcs ? [...plan.rules, [scriptsProcs, "write"]] : plan.rules, denyTcp: !plan.network, scopeAbstractSockets: !plan.network })
  } catch (error) {
    return fail((error as Error).message, 1)
  }
  const filtered = installSeccomp(plan.network)
  if (filtered < 0) return fail(`cannot install the seccomp filter (errno ${-filtered})`, 1)
  // Bun's own descriptors must not reach the command (its stdio stays).
  syscall(SYS_CLOSE_RANGE, 3, 0xffffffff, CLOSE_RANGE_CLOEXEC)
  // Still one thread (one started meanwhile would hold none of the above): this process is the
  // sandbox, and goes on as the executor. Else the execve leaves only this thread.
  if (inPlace && threadCount() === 1) {
    for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name]
    Object.assign(process.env, env)
    return inPlace
  }
  const result = execve(program, command, env)
  return fail(`cannot run ${program} (errno ${-result})`, 126)
}

/**
 * Root keeps every capability without a user namespace: all of them go, from the bounding set
 * too (so no later execve gives them back), or the sandbox does not start.
 */
function dropCapabilities(): string | undefined {
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
  const last = Number(readText("/proc/sys/kernel/cap_last_cap").trim()) || 40
  for (let cap = 0; cap <= last; cap++) prctl(PR_CAPBSET_DROP, cap)
  if (clearCapabilities() < 0) return "cannot drop capabilities"
  const status = readText("/proc/thread-self/status")
  const left = ["CapBnd", "CapEff", "CapPrm", "CapAmb"].filter((field) => /[1-9a-f]/.test(status.match(new RegExp(`^${field}:\\s*(\\w+)`, "m"))?.[1] ?? "0"))
  // Without CAP_SETPCAP the bounding set stays, but then no uid in it can gain what it holds but root.
  if (left.includes("CapEff") || left.includes("CapPrm") || (left.includes("CapBnd") && process.getuid?.() === 0)) {
    return `cannot drop every capability (${left.join(", ")} left)`
  }
  return undefined
}

/**
 * RLIMIT_NPROC for a user other than root (the kernel exempts root of the initial user namespace;
 * its pids cgroup bounds it; root of a container's own user namespace is bound): it counts every
 * task of that user on the machine, since there is no user namespace of the sandbox's own, so the
 * bound is what the user runs now plus MAX_PROCESSES.
 */
function processLimit(): number | undefined {
  const uid = process.getuid?.()
  if (uid === undefined || initialRoot()) return undefined
  let tasks = 0
  for (const name of readdirSafe("/proc")) {
    if (!/^\d+$/.test(name)) continue
    const status = readText(`/proc/${name}/status`)
    if (Number(status.match(/^Uid:\s*(\d+)/m)?.[1]) === uid) tasks += Number(status.match(/^Threads:\s*(\d+)/m)?.[1] ?? 1)
  }
  return tasks + MAX_PROCESSES
}

function hasTerminal(): boolean {
  try {
    closeSync(openSync("/dev/tty", "r"))
    return true
  } catch {
    return false
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return ""
  }
}

function readdirSafe(path: string): string[] {
  try {
    return readdirSync(path)
  } catch {
    return []
  }
}

function fail(message: string, code: number): number {
  process.stderr.write(`clanka: the Landlock sandbox cannot start: ${message}\n`)
  return code
}
