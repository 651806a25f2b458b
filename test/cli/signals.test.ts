import { afterEach, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { BUN, MAIN } from "../support/cli.ts"
import { startFakeModel, type FakeServer } from "../support/fake-model.ts"
import { findProcess, isRunning, ownSleep } from "../support/processes.ts"
import { temporaryDirectory } from "../support/temp.ts"
import { until } from "../support/until.ts"

const dir = temporaryDirectory("clanka-signals-")
let server: FakeServer | undefined
let count = 0
afterEach(async () => {
  await server?.close()
  server = undefined
})

/**
 * A command that writes a file once it runs, then sleeps as a `sleep` no other process has: the
 * test finds it by its command line (inside the OS sandbox its own pid is another namespace's).
 */
function sleeper(): { command: string; pidFile: string; argv: string[] } {
  const pidFile = join(dir, `pid-${++count}`)
  const seconds = ownSleep(`205.${count}`)
  return { command: `echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile} && exec sleep ${seconds}`, pidFile, argv: ["sleep", seconds] }
}

const dead = (pid: number) => !isRunning(pid)

/** Starts clanka, waits until the sleeper runs, sends `signal`, and returns how clanka ended. */
async function interrupt(args: string[], { pidFile, argv }: { pidFile: string; argv: string[] }, signal: NodeJS.Signals, env: Record<string, string> = {}) {
  const child = Bun.spawn([BUN, MAIN, ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: 20_000,
  })
  const stdout = new Response(child.stdout).text()
  const stderr = new Response(child.stderr).text()
  await until(() => existsSync(pidFile) && findProcess(argv) !== undefined, "the sleeper")
  const pid = findProcess(argv)!
  expect(dead(pid)).toBe(false)
  child.kill(signal)
  const code = await child.exited
  // clanka has exited: what it started must be gone by now, not some time later.
  return { code, stdout: await stdout, stderr: await stderr, sleeperDead: dead(pid) }
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  test(`clanka tool bash: ${signal} kills the command and exits 130`, async () => {
    const { command, ...sleeping } = sleeper()
    const result = await interrupt(["tool", "bash", JSON.stringify({ command })], sleeping, signal)
    expect(result).toEqual({ code: 130, stdout: "", stderr: "", sleeperDead: true })
  })
}

test("clanka exec: SIGTERM stops the script, kills what it started and exits 130", async () => {
  const { command, ...sleeping } = sleeper()
  const result = await interrupt(["exec", "-e", `await bash({ command: ${JSON.stringify(command)} })`], sleeping, "SIGTERM")
  expect(result).toEqual({ code: 130, stdout: "", stderr: "", sleeperDead: true })
})

test("clanka exec --executor: SIGHUP closes the executor, which kills what the script started", async () => {
  const { command, ...sleeping } = sleeper()
  const executor = `${BUN} ${MAIN} executor -C ${dir}`
  const script = `console.log("started"); await bash({ command: ${JSON.stringify(command)} })`
  const result = await interrupt(["exec", "--executor", executor, "-e", script], sleeping, "SIGHUP")
  expect(result).toEqual({ code: 130, stdout: "started\n", stderr: "", sleeperDead: true })
})

test("clanka run --json: SIGTERM ends with an AgentError line, kills what the script started, exit 130", async () => {
  const { command, ...sleeping } = sleeper()
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: `await bash({ command: ${JSON.stringify(command)} })` }] },
  ])
  const env = { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5" }
  const result = await interrupt(["run", "--json", "-C", dir, "wait"], sleeping, "SIGTERM", env)
  expect(result.code).toBe(130)
  expect(result.sleeperDead).toBe(true)
  expect(result.stderr).toBe("clanka: interrupted\n")
  const last = JSON.parse(result.stdout.trimEnd().split("\n").at(-1)!)
  expect(last).toEqual({ _tag: "AgentError", message: "interrupted", exitCode: 130 })
})

test("clanka run in conversation: SIGTERM during a turn stops it, kills what it started, exit 130", async () => {
  const { command, ...sleeping } = sleeper()
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: `await bash({ command: ${JSON.stringify(command)} })` }] },
  ])
  let screen = ""
  const decoder = new TextDecoder()
  const child = Bun.spawn([BUN, MAIN, "run", "-C", dir], {
    cwd: dir,
    env: { ...process.env, ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", NO_COLOR: "1" },
    terminal: { cols: 200, rows: 50, data: (_terminal, data) => void (screen += decoder.decode(data, { stream: true })) },
  })
  try {
    await until(() => screen.includes("› "), "the prompt")
    child.terminal!.write("wait\r")
    await until(() => existsSync(sleeping.pidFile) && findProcess(sleeping.argv) !== undefined, "the sleeper")
    const pid = findProcess(sleeping.argv)!
    child.kill("SIGTERM")
    expect(await Promise.race([child.exited, Bun.sleep(10_000).then(() => "still running")])).toBe(130)
    expect(dead(pid)).toBe(true)
    expect(screen).toContain("clanka: interrupted")
  } finally {
    child.kill("SIGKILL")
  }
})
