// What only the Landlock backend has to prove (the shared attacks are in os-sandbox.test.ts):
// Landlock and seccomp bind each thread, so every thread of the executor, the scripts' Worker
// among them, must be in the sandbox; the seccomp filter refuses what Landlock does not cover;
// the host's /tmp is closed but for the sandbox's own directory.
import { afterAll, describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { LANDLOCK } from "../support/sandbox-backends.ts"

const root = mkdtempSync("/var/tmp/clanka-landlock-")
const workspace = join(root, "app")
mkdirSync(workspace)
afterAll(() => rmSync(root, { recursive: true, force: true }))
const env = LANDLOCK.env

describe.skipIf(!LANDLOCK.available)("the Landlock sandbox", () => {
  test("every thread of the executor, the scripts' Worker among them, is in the sandbox", async () => {
    // bash's parent is the executor. From inside the sandbox a thread's environ can be read only
    // when that thread is in the same Landlock domain (or one nested in it): an unrestricted
    // thread would be refused, as the agent is.
    const command = `for t in /proc/$PPID/task/*; do
  echo "$(cat $t/comm): $(grep -E '^(NoNewPrivs|Seccomp):' $t/status | tr -s '\\t\\n' '  ')$(cat $t/environ >/dev/null 2>&1 && echo in the domain || echo OUTSIDE)"
done
cat /proc/$(ps -o ppid= -p $PPID)/environ >/dev/null 2>&1 && echo "the agent: OPEN" || echo "the agent: refused"`
    const result = await clanka(["exec", "-C", workspace, "-e", `console.log(await bash({ command: ${JSON.stringify(command)} }))`], { env })
    expect(result.stderr).toBe("")
    const lines = result.stdout.trim().split("\n")
    expect(lines.at(-1)).toBe("the agent: refused")
    const threads = lines.slice(0, -1)
    // The main thread, Bun's pools and JSC's helpers, and the Worker that runs scripts.
    expect(threads.length).toBeGreaterThan(4)
    expect(threads.some((line) => line.startsWith("Worker: "))).toBe(true)
    for (const line of threads) expect(line).toMatch(/^[^:]+: NoNewPrivs: 1 Seccomp: 2 in the domain$/)
  })

  test("the seccomp filter refuses ptrace, keyrings, BPF, perf, io_uring, namespaces and typing into a terminal", async () => {
    // Raw syscalls through perl, with this architecture's numbers; each prints its errno (1: EPERM).
    const numbers: Record<string, Record<string, number>> = {
      x64: { ptrace: 101, keyctl: 250, bpf: 321, perf_event_open: 298, io_uring_setup: 425, unshare: 272, ioctl: 16, clone3: 435 },
      arm64: { ptrace: 117, keyctl: 219, bpf: 280, perf_event_open: 241, io_uring_setup: 425, unshare: 97, ioctl: 29, clone3: 435 },
    }
    const nr = numbers[process.arch]!
    const calls: Record<string, string> = {
      "ptrace(PTRACE_TRACEME)": `${nr.ptrace}, 0, 0, 0, 0`,
      "keyctl(GET_KEYRING_ID, session)": `${nr.keyctl}, 0, -3, 0`,
      "bpf(MAP_CREATE)": `${nr.bpf}, 0, 0, 0`,
      "perf_event_open": `${nr.perf_event_open}, 0, 0, -1, -1, 0`,
      "io_uring_setup": `${nr.io_uring_setup}, 1, 0`,
      "unshare(CLONE_NEWUSER)": `${nr.unshare}, 0x10000000`,
      "ioctl(TIOCSTI)": `${nr.ioctl}, 0, 0x5412, 0`,
      "clone3 (38: ENOSYS)": `${nr.clone3}, 0, 0`,
    }
    const command = Object.entries(calls)
      .map(([name, args]) => `perl -e '$! = 0; syscall(${args}); print "${name}: ", $! + 0, "\\n"'`)
      .join("; ")
    const result = await clanka(["exec", "-C", workspace, "-e", `console.log(await bash({ command: ${JSON.stringify(command)} }))`], { env })
    expect(result).toEqual({
      code: 0,
      stdout: `${Object.keys(calls)
        .map((name) => `${name}: ${name.startsWith("clone3") ? 38 : 1}`)
        .join("\n")}\n\n`,
      stderr: "",
    })
  })

  test("the host's /tmp cannot be read; the sandbox's own temporary directory can", async () => {
    const host = mkdtempSync("/tmp/clanka-landlock-host-")
    try {
      writeFileSync(join(host, "note"), "host secret\n")
      const command = `cat ${host}/note 2>&1; echo mine > $TMPDIR/note && cat $TMPDIR/note`
      const result = await clanka(["exec", "-C", workspace, "-e", `console.log(await bash({ command: ${JSON.stringify(command)} }).catch((error) => error.message))`], { env })
      expect(result.stdout).toBe(`cat: ${host}/note: Permission denied\nmine\n\n`)
    } finally {
      rmSync(host, { recursive: true, force: true })
    }
  })
})
