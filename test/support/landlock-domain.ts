// What a script sees of the Landlock sandbox around its executor, from a bash command (bash's
// parent is the executor): the executor's command line (made in place, the step's own process
// goes on as the executor: `clanka __landlock-exec PLAN … -- clanka executor …`; else the step
// executed `clanka executor …`), each of its threads, and whether the agent above it is open.
// From inside the sandbox a thread's environ can be read only when that thread is in the same
// Landlock domain (or one nested in it): an unrestricted thread would be refused, as the agent is.

export const DOMAIN_PROBE = `tr '\\0' ' ' < /proc/$PPID/cmdline; echo
for t in /proc/$PPID/task/*; do
  echo "$(cat $t/comm): $(grep -E '^(NoNewPrivs|Seccomp):' $t/status | tr -s '\\t\\n' '  ')$(cat $t/environ >/dev/null 2>&1 && echo in the domain || echo OUTSIDE)"
done
echo "the executor's own settings in a command's environment: $(env | grep -c -E '^(BUN_JSC_|MIMALLOC_)')"
cat /proc/$(ps -o ppid= -p $PPID)/environ >/dev/null 2>&1 && echo "the agent: OPEN" || echo "the agent: refused"`

export interface DomainReport {
  /** The executor's command line, its arguments joined by spaces. */
  commandLine: string
  /** One line per thread: `NAME: NoNewPrivs: 1 Seccomp: 2 in the domain` when it is in the sandbox. */
  threads: string[]
  /** The lines after the threads' (settings, the agent). */
  rest: string[]
}

/** The probe's output (the script printed bash's output alone). */
export function readDomainReport(stdout: string): DomainReport {
  const lines = stdout.trim().split("\n")
  return { commandLine: lines[0]!.trim(), threads: lines.slice(1, -2), rest: lines.slice(-2) }
}

/** What every thread's line and the last lines read when the sandbox holds. */
export const IN_THE_DOMAIN = /^[^:]+: NoNewPrivs: 1 Seccomp: 2 in the domain$/
export const REST_WHEN_HELD = ["the executor's own settings in a command's environment: 0", "the agent: refused"]
