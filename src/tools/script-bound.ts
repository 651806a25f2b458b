/**
 * The bound the processes of scripts start under, below the executor's own (process-bound.ts):
 * the sandbox's `scripts` pids cgroup, entered before the command runs, and its lower
 * RLIMIT_NPROC. A script that fills its bound (a fork bomb) then leaves the executor room to start
 * the threads it needs. Told by the sandbox through two variables, which commands do not inherit.
 */
import { nprocLimitShell, SCRIPTS_CGROUP_VARIABLE, SCRIPTS_NPROC_VARIABLE } from "../executor/process-limit.ts"

// $1: the cgroup.procs to enter ("" for none), $2: the limit ("" for none); then the command. A
// step that fails leaves the command under the executor's bound, which still binds the sandbox
// (tests check where the commands run).
const ENTER = `[ -z "$1" ] || { echo $$ > "$1"; } 2>/dev/null
[ -z "$2" ] || ${nprocLimitShell('"$2"')}
shift 2
exec "$@"`

/** `command args` as spawned for a script: through a shell that enters the bound first, where there is one. */
export function underScriptBound(command: string, args: string[]): [string, string[]] {
  const procs = process.env[SCRIPTS_CGROUP_VARIABLE] ?? ""
  const nproc = Number(process.env[SCRIPTS_NPROC_VARIABLE])
  const limit = Number.isSafeInteger(nproc) && nproc > 0 ? String(nproc) : ""
  if (!procs && !limit) return [command, args]
  return ["/bin/sh", ["-c", ENTER, "sh", procs, limit, command, ...args]]
}

/** The variables that tell the bound: not for the commands themselves. */
export const BOUND_VARIABLES = [SCRIPTS_CGROUP_VARIABLE, SCRIPTS_NPROC_VARIABLE]
