// `bun no-landlock.ts COMMAND…`: runs COMMAND as on a kernel without Landlock. A seccomp filter
// answers the three Landlock syscalls with ENOSYS, as a kernel older than 5.13 does.
import { execve, prctl } from "../../src/executor/landlock-ffi.ts"
import { installFilter } from "../../src/executor/landlock-seccomp.ts"

const ENOSYS = 38
const program: [number, number, number, number][] = [
  [0x20, 0, 0, 0], // load the syscall number
  [0x35, 0, 2, 444], // below landlock_create_ruleset: allow
  [0x35, 1, 0, 447], // past landlock_restrict_self: allow
  [0x06, 0, 0, 0x00050000 | ENOSYS],
  [0x06, 0, 0, 0x7fff0000],
]
if (prctl(38 /* PR_SET_NO_NEW_PRIVS */, 1) < 0 || installFilter(program) < 0) {
  console.error("no-landlock: cannot install the filter")
  process.exit(1)
}
const [command, ...args] = process.argv.slice(2)
const env: Record<string, string> = {}
for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value
execve(Bun.which(command!) ?? command!, [command!, ...args], env)
console.error(`no-landlock: cannot run ${command}`)
process.exit(127)
