// The standby (src/executor/standby.ts): the executor's process started before its command line is
// known. What it accepts as orders, what it refuses, that `run` and `tool` use it where it fits
// and never leave it behind, and that it never holds the agent's environment.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ONE_THREAD_ENV } from "../../src/executor/landlock-step.ts"
import { ordersMessage, standbyKind, startStandby, takeStandby } from "../../src/executor/standby.ts"
import { selfCommand } from "../../src/executor/self.ts"
import { BUN, clanka, COMPILED, MAIN } from "../support/cli.ts"
import { startFakeModel } from "../support/fake-model.ts"
import { isRunning } from "../support/processes.ts"
import { messagesUntil, outputText } from "../support/protocol-lines.ts"
import { until } from "../support/until.ts"

let dir: string
let server: Awaited<ReturnType<typeof startFakeModel>>

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "clanka-standby-")))
  // What the executor's process is, as its bash sees it (bash's parent is the executor): the run's answer.
  const command = "tr '\\0' ' ' < /proc/$PPID/cmdline; echo; tr '\\0' '\\n' < /proc/$PPID/environ | sort"
  server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script: `await taskComplete(await bash({ command: ${JSON.stringify(command)} }))` }] }])
})

afterAll(async () => {
  await server.close()
  rmSync(dir, { recursive: true, force: true })
})

/** This clanka (COMPILED, or from source) started by hand as a standby, as `run` starts one. */
function spawnStandby(kind: string) {
  const argv = [...(COMPILED ? [COMPILED] : selfCommand()), "__standby", kind]
  return Bun.spawn(argv, { stdin: "pipe", stdout: "pipe", stderr: "pipe", env: { ...ONE_THREAD_ENV }, timeout: 20_000 })
}

/** A standby started by hand with the orders in `orders` on its stdin, then its end. */
async function standby(orders: Buffer | string, kind = "off") {
  const child = spawnStandby(kind)
  child.stdin.write(orders)
  child.stdin.end()
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { stdout, stderr, code }
}

describe("the standby's orders", () => {
  test("a standby that gets none (its agent went away) exits 0 and prints nothing", async () => {
    expect(await standby("")).toEqual({ stdout: "", stderr: "", code: 0 })
  })

  test("it becomes nothing but the Landlock step or the executor: other orders are exit 2, and nothing runs", async () => {
    const marker = join(dir, "ran")
    const result = await standby(ordersMessage(["/bin/sh", "-c", `touch ${marker}`], { PATH: "/usr/bin:/bin" }))
    expect(result).toEqual({ stdout: "", stderr: "clanka: __standby: it becomes only the Landlock step (__landlock-exec) or the executor\n", code: 2 })
    expect(existsSync(marker)).toBe(false)
    // Nor another of clanka's own commands.
    expect((await standby(ordersMessage(["run", "hi"], {}))).stderr).toBe("clanka: __standby: it becomes only the Landlock step (__landlock-exec) or the executor\n")
  })

  test("orders that are too long, cut short, not JSON or without an environment are exit 2 with the reason", async () => {
    const header = (length: number) => {
      const bytes = Buffer.alloc(4)
      bytes.writeUInt32BE(length)
      return bytes
    }
    expect(await standby(header(2 ** 31))).toEqual({ stdout: "", stderr: "clanka: __standby: its orders are 2147483648 bytes, more than 1048576\n", code: 2 })
    expect(await standby(Buffer.concat([header(100), Buffer.from('{"argv":')]))).toEqual({ stdout: "", stderr: "clanka: __standby: its orders ended early\n", code: 2 })
    const notJson = await standby(Buffer.concat([header(5), Buffer.from("hello")]))
    expect(notJson.code).toBe(2)
    expect(notJson.stderr).toStartWith("clanka: __standby: its orders cannot be read: ")
    const noEnv = Buffer.from(JSON.stringify({ argv: ["executor"], env: ["PATH=/bin"] }))
    expect(await standby(Buffer.concat([header(noEnv.length), noEnv]))).toEqual({ stdout: "", stderr: "clanka: __standby: its orders carry no environment\n", code: 2 })
  })

  test("given the executor's command line, it serves the protocol with the environment of its orders and no other", async () => {
    const child = spawnStandby("off")
    child.stdin.write(ordersMessage(["executor", "-C", dir, "--sandbox", "off"], { PATH: process.env.PATH!, HOME: dir, CLANKA_STANDBY_MARK: "ordered" }))
    const script = `console.log(await bash({ command: "echo $CLANKA_STANDBY_MARK; env | cut -d= -f1 | sort | paste -sd ' '" }))`
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "capabilities" }) + "\n")
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "execute", params: { script } }) + "\n")
    child.stdin.flush()
    const lines = await messagesUntil(child.stdout, 2)
    child.stdin.end()
    expect(await child.exited).toBe(0)
    expect(await new Response(child.stderr).text()).toBe("")
    expect(lines[0]).toMatchObject({ id: 1, result: { directory: dir, sandbox: { mode: "off" } } })
    const printed = outputText(lines)
    // The variables the orders named (and those the executor and bash add), none of this test's own.
    expect(printed).toBe("ordered\nCLANKA_EXECUTOR_TAG CLANKA_STANDBY_MARK HOME PATH PWD SHLVL _\n\n")
    expect(lines.at(-1)).toEqual({ jsonrpc: "2.0", id: 2, result: { ok: true } })
  })
})

describe("which runs start one", () => {
  const missing = { CLANKA_BWRAP: "/nonexistent/bwrap" }
  const installed = { CLANKA_BWRAP: "/bin/sh" }

  test("run, exec and tool with --sandbox off, with Landlock forced, or where bubblewrap is not installed", () => {
    const linux = process.platform === "linux"
    expect(standbyKind("run", { sandbox: "off" }, installed)).toBe(linux ? "off" : undefined)
    expect(standbyKind("exec", { "sandbox-backend": "landlock" }, installed)).toBe(linux ? "landlock" : undefined)
    expect(standbyKind("run", {}, { ...installed, CLANKA_SANDBOX_BACKEND: "landlock" })).toBe(linux ? "landlock" : undefined)
    expect(standbyKind("run", {}, missing)).toBe(linux ? "landlock" : undefined)
    expect(standbyKind("tool", { sandbox: "off" }, installed)).toBe(linux ? "off" : undefined)
  })

  test("not for bubblewrap, a remote executor, an --executor command or another command", () => {
    expect(standbyKind("run", {}, installed)).toBeUndefined()
    expect(standbyKind("run", { "sandbox-backend": "bwrap" }, missing)).toBeUndefined()
    expect(standbyKind("run", { "sandbox-backend": "auto" }, { ...installed, CLANKA_SANDBOX_BACKEND: "landlock" })).toBeUndefined()
    expect(standbyKind("run", { sandbox: "off", ssh: "box" }, missing)).toBeUndefined()
    expect(standbyKind("exec", { sandbox: "off", executor: "clanka executor" }, missing)).toBeUndefined()
    expect(standbyKind("acp", { sandbox: "off" }, missing)).toBeUndefined()
    expect(standbyKind("batch", { sandbox: "off" }, missing)).toBeUndefined()
  })

  test("a standby that does not fit what is spawned is killed, and the spawn goes on without it", async () => {
    startStandby("off")
    const standbys = () => childrenOf(process.pid).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("\0__standby\0"))
    const [pid] = standbys()
    expect(pid).toBeNumber()
    expect(takeStandby(["/bin/true"], {})).toBeUndefined()
    await until(() => !isRunning(pid!), "the standby to be killed")
    // Taken once: nothing is waiting any more.
    expect(takeStandby([...selfCommand(), "executor"], {})).toBeUndefined()
    expect(standbys().filter(isRunning)).toEqual([])
  })
})

describe("run and tool use it", () => {
  test("--sandbox off: the executor is the standby, and its process's environment never held the agent's", async () => {
    const result = await clanka(["run", "--sandbox", "off", "-o", "text", "-m", "anthropic/claude-sonnet-4-5", "-C", dir, "look"], {
      env: { ...server.env, CLANKA_HOME: dir, CLANKA_STANDBY_SECRET: "agent-only" },
    })
    expect(result.code).toBe(0)
    const [cmdline, ...environ] = result.stdout.trim().split("\n")
    expect(cmdline).toBe(`${[...(COMPILED ? [COMPILED] : selfCommand()), "__standby", "off"].join(" ")} `)
    // What the process started with (/proc/PID/environ): the step's two settings and nothing else.
    expect(environ).toEqual(["BUN_JSC_warmUpMarkedBlockStartAfterBlocks=256", "MIMALLOC_SCAVENGER=0"])
  })

  test("tool --sandbox off: the executor is the standby", async () => {
    const command = "tr '\\0' ' ' < /proc/$PPID/cmdline"
    const result = await clanka(["tool", "bash", JSON.stringify({ command }), "--sandbox", "off", "-C", dir])
    expect(result).toEqual({ code: 0, stdout: `${JSON.stringify(`${[...(COMPILED ? [COMPILED] : selfCommand()), "__standby", "off"].join(" ")} `)}\n`, stderr: "" })
  })

  test("a run that fails before its executor starts leaves no standby behind", async () => {
    // No key: exit 2 once the model is chosen, after the standby was started.
    const child = Bun.spawn([...(COMPILED ? [COMPILED] : [BUN, MAIN]), "run", "--sandbox", "off", "-m", "anthropic/claude-sonnet-4-5", "-C", dir, "hi"], {
      env: { PATH: process.env.PATH, HOME: dir, CLANKA_HOME: dir },
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
      timeout: 20_000,
    })
    const stderr = await new Response(child.stderr).text()
    expect(await child.exited).toBe(2)
    expect(stderr).toContain("ANTHROPIC_API_KEY")
    // Everything the run started is in its process group (detached: the group is the run's pid).
    await until(() => inGroup(child.pid).length === 0, "the run's processes to end", 5000)
  })
})

/** The pids whose parent is `parent`. */
function childrenOf(parent: number): number[] {
  return procPids().filter((pid) => stat(pid)?.parent === parent)
}

/** The pids of process group `group` still running. */
function inGroup(group: number): number[] {
  return procPids().filter((pid) => stat(pid)?.group === group && isRunning(pid))
}

function procPids(): number[] {
  return readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number)
}

/** A process's parent and group, from /proc/PID/stat (after the command's name: state, ppid, pgrp). */
function stat(pid: number): { parent: number; group: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8")
    const [, parent, group] = text.slice(text.lastIndexOf(")") + 2).split(" ")
    return { parent: Number(parent), group: Number(group) }
  } catch {
    return undefined
  }
}
