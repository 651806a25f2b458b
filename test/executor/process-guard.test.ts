// Everything a script starts ends when the executor ends — also what left its process group with
// setsid, and also when the executor itself is killed outright and cannot clean up.
import { expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { findProcess, isRunning, ownSleep } from "../support/processes.ts"
import { RawSession } from "../protocol/raw-session.ts"
import { temporaryDirectory } from "../support/temp.ts"

const directory = temporaryDirectory("clanka-guard-")

async function until(condition: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) return false
    await Bun.sleep(25)
  }
  return true
}

const pidIn = (file: string) => Number(readFileSync(join(directory, file), "utf8").trim())

// A command that leaves the script's process group twice over: a new session, and a double fork.
const escapees = (name: string) =>
  `await bash({ command: "setsid sh -c 'echo $$ > ${name}-setsid.pid; exec sleep 300' >/dev/null 2>&1 & (sh -c 'echo $$ > ${name}-orphan.pid; exec sleep 300' >/dev/null 2>&1 &) ; sleep 0.2" })`

test("without the OS sandbox, a script's setsid and double-forked children end when clanka exec ends", async () => {
  const result = await clanka(["exec", "-C", directory, "--sandbox", "off", "-e", escapees("exec")])
  expect(result).toEqual({ code: 0, stdout: "", stderr: "" })
  const pids = [pidIn("exec-setsid.pid"), pidIn("exec-orphan.pid")]
  expect(await until(() => pids.every((pid) => !isRunning(pid)))).toBe(true)
})

test("a SIGKILLed executor leaves nothing running: its guardian kills what the scripts started", async () => {
  const session = new RawSession(directory)
  session.send({ jsonrpc: "2.0", id: 1, method: "execute", params: { script: `${escapees("killed")}; await sleep(60000)` } })
  expect(await until(() => existsSync(join(directory, "killed-orphan.pid")) && existsSync(join(directory, "killed-setsid.pid")))).toBe(true)
  await Bun.sleep(100)
  const pids = [pidIn("killed-setsid.pid"), pidIn("killed-orphan.pid")]
  expect(pids.every(isRunning)).toBe(true)
  session.child.kill("SIGKILL")
  await session.exited
  expect(await until(() => pids.every((pid) => !isRunning(pid)))).toBe(true)
})

test("in the OS sandbox, a setsid sleeper is gone after the run: its pid namespace ends with the executor", async () => {
  const [setsid, orphan] = [ownSleep("300.7"), ownSleep("300.8")]
  const script = `await bash({ command: "setsid sleep ${setsid} >/dev/null 2>&1 & (sleep ${orphan} >/dev/null 2>&1 &); sleep 0.2" })`
  const run = clanka(["exec", "-C", directory, "--sandbox", "workspace-write", "-e", `${script}; console.log("started"); await sleep(1000)`])
  expect(await until(() => findProcess(["sleep", setsid]) !== undefined && findProcess(["sleep", orphan]) !== undefined)).toBe(true)
  expect(await run).toEqual({ code: 0, stdout: "started\n", stderr: "" })
  expect(await until(() => findProcess(["sleep", setsid]) === undefined && findProcess(["sleep", orphan]) === undefined, 2000)).toBe(true)
})
