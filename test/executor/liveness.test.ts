// Liveness: while a call waits, the client pings the executor; one that stops answering (frozen,
// a link that drops packets) ends the run with exit 3 and one line within the ping timeout,
// whatever the script's time limit. A slow script on a live executor is never cut short.
// CLANKA_PING_MS=100 makes the timeout 0.6 s here instead of 30 s.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { spawn } from "node:child_process"
import { appendFileSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, MAIN, sshdAvailable, startSshProject, type SshProject } from "../support/sshd.ts"
import { isRunning } from "../support/processes.ts"

const available = sshdAvailable()
let host: SshProject
const FAST_PINGS = { CLANKA_PING_MS: "100" }
// Scripts that must not be taken for a frozen executor: longer than the timeout (1.8 s), with a
// margin for a loaded machine.
const SLOW_PINGS = { CLANKA_PING_MS: "300" }

beforeAll(async () => {
  if (available) host = await startSshProject("clanka-liveness-", { "README.md": "remote readme\n" })
})

afterAll(async () => {
  if (available) await host.stop()
})

interface Run {
  code: number | null
  stdout: string
  stderr: string
  /** When it exited. */
  endedAt: number
}

function clanka(args: string[], env: Record<string, string>, onStdout?: (text: string) => void): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(BUN, [MAIN, ...args], { cwd: host.local, env: { ...process.env, ...host.env, ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
      onStdout?.(String(chunk))
    })
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => done({ code, stdout, stderr, endedAt: Date.now() }))
  })
}

test.skipIf(!available)("a frozen executor on the far side ends the run with exit 3 and one line, long before the script's limit", async () => {
  host.forgetRemote()
  let frozen = 0
  let frozenAt = 0
  const result = await clanka(
    // --sandbox off: the process the pid file names is then the one that serves the protocol.
    ["exec", "--ssh", host.target, "--remote-bin", host.remoteBin, "--sandbox", "off", "-e", 'console.log("working"); await sleep(60000)'],
    FAST_PINGS,
    () => {
      if (frozen) return
      frozen = Number(readFileSync(join(host.dir, "remote.pid"), "utf8"))
      process.kill(frozen, "SIGSTOP")
      frozenAt = Date.now()
    },
  )
  try {
    expect(result.code).toBe(3)
    expect(result.stdout).toBe("working\n")
    expect(result.stderr).toBe(
      "clanka: the executor on clanka-test-host stopped answering: no reply to pings for 0.6 s; check it and run again\n",
    )
    // 0.6 s of silence, the ssh child stopped at once (no wait for a frozen process to wind down).
    expect(result.endedAt - frozenAt).toBeLessThan(3000)
  } finally {
    if (frozen && isRunning(frozen)) process.kill(frozen, "SIGKILL")
  }
})

test.skipIf(!available)("an --executor command that freezes itself mid-script: exit 3 and one line", async () => {
  const command = `exec '${BUN}' '${MAIN}' executor -C '${host.local}'`
  let freezingAt = 0
  const result = await clanka(
    ["exec", "--executor", command, "-e", 'console.log("freezing"); await bash({ command: "kill -STOP $PPID" }); console.log("not reached")'],
    FAST_PINGS,
    () => (freezingAt ||= Date.now()),
  )
  expect(result.code).toBe(3)
  expect(result.stdout).toBe("freezing\n")
  expect(result.stderr).toBe(
    `clanka: the executor command (${command}) stopped answering: no reply to pings for 0.6 s; check it and run again\n`,
  )
  // The 0.6 s, then SIGTERM and SIGKILL a second later (a stopped process handles no SIGTERM).
  expect(result.endedAt - freezingAt).toBeLessThan(4000)
})

test.skipIf(!available)("a slow script on a live executor runs to its end: it answers the pings meanwhile", async () => {
  const script = `console.log("start")
await bash({ command: "sleep 2.5" })
const until = Date.now() + 2500
while (Date.now() < until) {}
console.log("end")`
  const result = await clanka(["exec", "--ssh", host.target, "--remote-bin", host.remoteBin, "-e", script], SLOW_PINGS)
  expect(result).toMatchObject({ code: 0, stdout: "start\nend\n", stderr: "" })
})

test.skipIf(!available)("the local executor child is pinged too: a script that spins for seconds is not taken for a frozen executor", async () => {
  const script = `const until = Date.now() + 3000
while (Date.now() < until) {}
console.log("spun")`
  const result = await clanka(["exec", "-e", script], SLOW_PINGS)
  expect(result).toMatchObject({ code: 0, stdout: "spun\n", stderr: "" })
})

test.skipIf(!available)("a host that takes the connection but never speaks ssh: exit 3 and one line after the liveness time", async () => {
  // A listener that accepts and stays silent, as a frozen machine's sshd would.
  const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
  try {
    appendFileSync(join(host.dir, "ssh_config"), `Host frozen\n  HostName 127.0.0.1\n  Port ${silent.port}\n  BatchMode yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n`)
    const started = Date.now()
    // CLANKA_PING_MS=500: the liveness time, and so ssh's connect timeout, is 3 s.
    const result = await clanka(["exec", "--ssh", "frozen:/srv", "-e", "console.log(1)"], { CLANKA_PING_MS: "500" })
    expect(result.code).toBe(3)
    expect(result.stdout).toBe("")
    expect(result.stderr).toMatch(/^clanka: [^\n]*frozen[^\n]*timed out[^\n]*\n$/)
    expect(result.endedAt - started).toBeLessThan(15_000)
  } finally {
    silent.stop(true)
  }
})

test.skipIf(!available)("CLANKA_PING_MS below 50 ms is taken as 50: a healthy executor is not taken for a frozen one", async () => {
  const result = await clanka(["exec", "--sandbox", "off", "-e", 'const end = Date.now() + 400; while (Date.now() < end); console.log("done")'], { CLANKA_PING_MS: "1" })
  expect(result).toMatchObject({ code: 0, stdout: "done\n", stderr: "" })
})
