/**
 * The bound on the processes (and threads) a sandbox may hold at once: MAX_PROCESSES for what its
 * scripts start, EXECUTOR_HEADROOM more for the executor itself, which a script that fills its
 * bound cannot take. Two mechanisms, because the kernel exempts root (uid 0 of the initial user
 * namespace) from RLIMIT_NPROC:
 * - RLIMIT_NPROC set inside the sandbox (`ulimit -u`): the sandbox has a user namespace of its
 *   own, where the kernel counts only the sandbox's processes of that user. It binds every user
 *   but root. The executor's limit is the higher one; the scripts' processes start under the lower
 *   (tools/script-bound.ts).
 * - A pids cgroup made for the sandbox where the caller may create one (root; a user with a
 *   delegated cgroup v2 subtree): the sandbox is in it before it runs anything, so it binds root
 *   too. Removed, with whatever is left in it, when the executor ends. The executor is in its
 *   `exec` child, the processes of its scripts in its `scripts` child (`pids.max` MAX_PROCESSES),
 *   whose cgroup.procs is the one file of the hierarchy the sandbox may write.
 */
import type { Subprocess } from "bun"
import { accessSync, closeSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { ExecutorLostError } from "../errors.ts"
import { errorMessage } from "../util/error-message.ts"
import { settlesWithin } from "../util/settles-within.ts"
import { processAlive } from "../util/process-alive.ts"
import { bwrapIndex } from "./session-keyring.ts"
import { watchCgroups } from "./cgroup-watcher.ts"
import { LANDLOCK_EXEC } from "./landlock-step.ts"
import { EXECUTOR_HEADROOM, initialRoot, MAX_PROCESSES, nprocLimitShell, SCRIPTS_CGROUP_VARIABLE, SCRIPTS_NPROC_VARIABLE } from "./process-limit.ts"

/**
 * `argv` (run inside the sandbox) with RLIMIT_NPROC lowered first (nprocLimitShell). Not for
 * root: the kernel never applies the limit to uid 0 of the initial user namespace (inside bwrap's
 * user namespace too), so the shell would be a process started for nothing; the pids cgroup binds
 * root. Root of a container's own user namespace is bound by it, and gets the shell.
 */
export function underProcessLimit(argv: string[], max = MAX_PROCESSES, exempt = initialRoot()): string[] {
  if (exempt) return argv
  const own = max + EXECUTOR_HEADROOM
  return ["/bin/sh", "-c", `${nprocLimitShell(String(own))}; ${SCRIPTS_NPROC_VARIABLE}=${max} exec "$@"`, "sh", ...argv]
}

export interface ProcessBound {
  /** The sandbox's argv, entering the cgroup first when there is one. */
  argv: string[]
  /** The cgroup, if one was made. */
  cgroup?: string
  /** Kills what is left in the cgroup and removes it; call when the sandbox has ended. */
  release(): Promise<void>
  /**
   * Set when `argv` is to be spawned with two more pipes (its fds 3 and 4): moves the sandbox into
   * the cgroup once bwrap has made it, then lets it run. Rejects, with the sandbox killed before it
   * ran anything, when the move fails.
   */
  admit?(child: Subprocess): Promise<void>
}

/** Wraps a bwrap argv so that bwrap runs in a fresh pids cgroup, where one can be made. */
export function inPidsCgroup(argv: string[]): ProcessBound {
  const group = makeCgroup()
  if (!group) return { argv, release: async () => {} }
  const landlock = argv.indexOf(LANDLOCK_EXEC)
  if (landlock >= 0) {
    // Under Landlock no pid namespace ends with the sandbox: should this process be killed outright,
    // a watcher outside empties the cgroup (cgroup-watcher.ts). bwrap's pid namespace does that.
    watchCgroups(dirname(group.dir))
    // The Landlock step enters the cgroup itself, before it runs anything of the sandbox's: no
    // shell started first (landlock-exec.ts).
    const plan = landlock + 2
    return {
      argv: [...argv.slice(0, plan), "--cgroup", group.dir, ...argv.slice(plan)],
      cgroup: group.dir,
      release: () => releaseCgroup(group),
    }
  }
  const script = 'echo $$ > "$0/exec/cgroup.procs" || { echo "clanka: cannot enter the pids cgroup $0" >&2; exit 1; }; exec "$@"'
  return {
    argv: ["/bin/sh", "-c", script, group.dir, ...withScriptsCgroup(argv, group)],
    cgroup: group.dir,
    release: () => releaseCgroup(group),
  }
}

/**
 * Like `inPidsCgroup` for bwrap, with the cgroup entered beside bwrap's start instead of before
 * it: moving a process waits on the kernel (a grace period, ~10 ms on a busy machine). bwrap
 * reports its sandbox's first process on fd 3 and holds it, before it runs anything, until a byte
 * arrives on fd 4 (`--info-fd`, `--block-fd`); `admit` starts a shell that moves that process into
 * the cgroup and then lets it go on. bwrap's own process stays outside; it runs nothing of the
 * sandbox's. A shell, not this process, so that the move never waits for this one's event loop.
 */
export function heldInPidsCgroup(argv: string[]): ProcessBound {
  const group = makeCgroup()
  if (!group) return { argv, release: async () => {} }
  return {
    // Right after bwrap's program (which may come after the session keyring's step).
    argv: withScriptsCgroup([...argv.slice(0, bwrapIndex(argv) + 1), "--info-fd", "3", "--block-fd", "4", ...argv.slice(bwrapIndex(argv) + 1)], group),
    cgroup: group.dir,
    release: () => releaseCgroup(group),
    admit: async (child) => {
      const [info, hold] = (child.stdio as unknown as number[]).slice(3) as [number, number]
      let helper: Subprocess<number, "ignore", "pipe">
      try {
        helper = Bun.spawn(["/bin/sh", "-c", ADMIT, join(group.dir, "exec")], { stdio: [info, "ignore", "pipe", hold] })
      } catch (error) {
        child.kill("SIGKILL")
        await child.exited
        closeSync(hold)
        throw new ExecutorLostError(`cannot enter the pids cgroup ${group.dir}: ${errorMessage(error)}`)
      } finally {
        closeSync(info)
      }
      const [code, stderr] = await Promise.all([helper.exited, new Response(helper.stderr).text()])
      // Until bwrap is gone, this end of the hold stays open: its end would let a held sandbox run.
      if (code !== 0) {
        // 3: the sandbox was never made or is gone already: bwrap is failing, and is given a
        // moment to say why on its stderr. Otherwise the held sandbox goes with bwrap.
        if (code !== 3 || !(await settlesWithin(child.exited, BWRAP_FAILING_MS))) child.kill("SIGKILL")
        await child.exited
      }
      closeSync(hold)
      // The shell's own prefix (`sh: 6: `) is left out.
      const reason = stderr.trim().split("\n").pop()?.replace(/^.*?: \d+: /, "") || `exit ${code}`
      if (code !== 0 && code !== 3) throw new ExecutorLostError(`cannot enter the pids cgroup ${group.dir}: ${reason}`)
    },
  }
}

/**
 * bwrap's argv with the scripts' cgroup.procs bound writable (after the read-only root: just
 * before the `--` that ends bwrap's options) and named to the executor.
 */
function withScriptsCgroup(argv: string[], group: Cgroup): string[] {
  const end = argv.indexOf("--", bwrapIndex(argv) + 1)
  if (end < 0) return argv
  const procs = join(group.dir, "scripts", "cgroup.procs")
  return [...argv.slice(0, end), "--bind", procs, procs, "--setenv", SCRIPTS_CGROUP_VARIABLE, procs, ...argv.slice(end)]
}

/** How long a bwrap whose sandbox is gone is given to exit by itself, with its reason. */
const BWRAP_FAILING_MS = 2_000

/**
 * Moves the process bwrap's report names (`"child-pid": N,`) into the cgroup ($0) as soon as it is
 * read, then releases it; then reads the report to its end, which bwrap closes only once its
 * sandbox is set up (bwrap dies of SIGPIPE if its reader leaves early). A move that fails kills N
 * (exit 1); exit 3 when there is no N, or it is gone (bwrap failed after making it).
 */
const ADMIT = `trap '' PIPE
status=3
while IFS=' ,' read -r key value rest; do
  [ "$key" = '"child-pid":' ] || continue
  case $value in ''|*[!0-9]*) break;; esac
  if ! echo "$value" > "$0/cgroup.procs"; then
    kill -9 "$value" 2>/dev/null && status=1
    break
  fi
  printf x >&3 && status=0
  break
done
while read -r rest; do :; done
exit $status`

async function releaseCgroup(group: Cgroup): Promise<void> {
  // The sandbox's last processes are still being reaped for a moment after it exits: look
  // again soon, then less often (about 2 s in all).
  for (let i = 0; i < 110 && !removeCgroup(group); i++) await Bun.sleep(Math.min(20, 2 ** (i >> 1)))
  live.delete(group)
}

interface Cgroup {
  dir: string
  v2: boolean
}

/** A sandbox's cgroup's children: the executor's and its scripts'. */
const CHILDREN = ["exec", "scripts"]

const live = new Set<Cgroup>()
let exitHook = false
let made = 0
/** The cgroup `cgroupAhead` made, until a sandbox takes it. */
let ahead: Cgroup | undefined

/**
 * For a command about to start a sandbox: makes its pids cgroup now, and starts the kernel's grace
 * period that a move into a cgroup first waits for (~10 ms on a busy machine). The kernel lets
 * the moves that follow within a grace period skip that wait, and the sandbox's move comes some
 * milliseconds later. The move that starts it is this process's into the cgroup it is already in,
 * which changes nothing, written from a thread of the pool so that this process goes on; it holds
 * the kernel's cgroup lock meanwhile, which is why the sandbox's cgroup is made before it. The
 * write is handed to the pool here and now (node:fs/promises loaded synchronously), not after an
 * import settles: this process may not yield for milliseconds. Unused, the cgroup is removed at
 * exit like any other.
 */
export function cgroupAhead(): void {
  if (ahead) return
  const group = makeCgroup()
  if (!group) return
  ahead = group
  process.getBuiltinModule("node:fs/promises").writeFile(join(dirname(group.dir), "cgroup.procs"), String(process.pid)).catch(() => {})
}

/** The pids hierarchy's directory this process is in: cgroup v2 with pids, else v1's pids. */
function ownPidsCgroup(): Cgroup | undefined {
  let lines: string[]
  try {
    lines = readFileSync("/proc/self/cgroup", "utf8").split("\n")
  } catch {
    return undefined
  }
  const unified = lines.find((line) => line.startsWith("0::"))
  if (unified && existsSync("/sys/fs/cgroup/cgroup.controllers")) {
    const dir = join("/sys/fs/cgroup", unified.slice(3))
    if (read(join(dir, "cgroup.controllers")).split(/\s+/).includes("pids")) return { dir, v2: true }
  }
  const v1 = lines.find((line) => line.split(":")[1]?.split(",").includes("pids"))
  if (v1 && existsSync("/sys/fs/cgroup/pids/cgroup.procs")) return { dir: join("/sys/fs/cgroup/pids", v1.split(":").slice(2).join(":")), v2: false }
  return undefined
}

/** A fresh pids cgroup (`pids.max` MAX_PROCESSES), or the one `cgroupAhead` made. */
function makeCgroup(): Cgroup | undefined {
  if (ahead) {
    const group = ahead
    ahead = undefined
    return group
  }
  if (process.platform !== "linux") return undefined
  const parent = ownPidsCgroup()
  if (!parent) return undefined
  try {
    // Moving a process between cgroups takes write access to their common ancestor's procs.
    accessSync(join(parent.dir, "cgroup.procs"), constants.W_OK)
    if (parent.v2 && !read(join(parent.dir, "cgroup.subtree_control")).split(/\s+/).includes("pids")) {
      writeFileSync(join(parent.dir, "cgroup.subtree_control"), "+pids")
    }
    sweep(parent.dir)
    const dir = join(parent.dir, `clanka-${process.pid}-${++made}`)
    mkdirSync(dir)
    const group = { dir, v2: parent.v2 }
    try {
      writeFileSync(join(dir, "pids.max"), String(MAX_PROCESSES + EXECUTOR_HEADROOM))
      // cgroup v2 lets only a cgroup without processes pass its controllers on: none are in this one.
      if (parent.v2) writeFileSync(join(dir, "cgroup.subtree_control"), "+pids")
      for (const child of CHILDREN) mkdirSync(join(dir, child))
      writeFileSync(join(dir, "scripts", "pids.max"), String(MAX_PROCESSES))
      for (const child of CHILDREN) accessSync(join(dir, child, "cgroup.procs"), constants.W_OK)
    } catch {
      removeCgroup(group)
      return undefined
    }
    if (!exitHook) {
      exitHook = true
      process.on("exit", () => {
        for (const group of live) removeCgroup(group)
      })
    }
    // Live until released, or until this process exits.
    live.add(group)
    return group
  } catch {
    return undefined
  }
}

/** Removes the cgroups a clanka that is gone (killed outright) left behind. */
function sweep(parent: string): void {
  for (const name of readdirSync(parent)) {
    const pid = Number(name.match(/^clanka-(\d+)-\d+$/)?.[1])
    if (!pid || pid === process.pid || processAlive(pid)) continue
    removeCgroup({ dir: join(parent, name), v2: existsSync(join(parent, name, "cgroup.kill")) })
  }
}

/** Kills what is in the cgroup and its children and removes them; false while one still holds processes. */
function removeCgroup(group: Cgroup): boolean {
  if (!existsSync(group.dir)) return true
  const dirs = [...CHILDREN.map((child) => join(group.dir, child)).filter((dir) => existsSync(dir)), group.dir]
  try {
    if (group.v2 && existsSync(join(group.dir, "cgroup.kill"))) writeFileSync(join(group.dir, "cgroup.kill"), "1")
    else for (const dir of dirs) for (const pid of read(join(dir, "cgroup.procs")).split("\n").filter(Boolean)) killQuietly(Number(pid))
  } catch {
    // gone meanwhile
  }
  try {
    for (const dir of dirs) rmdirSync(dir)
    return true
  } catch {
    return false
  }
}


function read(path: string): string {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return ""
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // gone meanwhile
  }
}
