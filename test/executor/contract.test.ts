// The Executor contract (src/contract.ts), checked the same way against every kind of executor:
// the in-process LocalExecutor, a RemoteExecutor over a `clanka executor` child's stdio, and one
// over ssh to the loopback sshd. A new kind of executor is checked by adding one entry to KINDS.
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import {
  CancelledError,
  InvalidParamsError,
  ScriptError,
  ToolError,
  UnknownToolError,
  type ExecuteOptions,
  type Executor,
} from "../../src/contract.ts"
import { LocalExecutor } from "../../src/executor/local.ts"
import { RemoteExecutor } from "../../src/executor/remote.ts"
import { VERSION } from "../../src/version.ts"
import { BUN, MAIN, sshdAvailable, startSshd, writeRemoteBin, type Sshd } from "../support/sshd.ts"
import { temporaryDirectory } from "../support/temp.ts"
import { until } from "../support/until.ts"

interface Kind {
  name: string
  available: boolean
  open(directory: string): Promise<Executor>
  /** Cleanup of what `open` needed besides the executor. */
  stop?(): Promise<void>
}

let sshd: Sshd | undefined
const KINDS: Kind[] = [
  { name: "LocalExecutor", available: true, open: async (directory) => new LocalExecutor({ directory }) },
  {
    name: "RemoteExecutor over a clanka executor child",
    available: true,
    open: (directory) =>
      RemoteExecutor.start({ argv: [BUN, MAIN, "executor", "-C", directory], label: "clanka executor" }),
  },
  {
    name: "RemoteExecutor over ssh",
    available: sshdAvailable(),
    async open(directory) {
      sshd ??= await startSshd()
      const remoteBin = writeRemoteBin(join(sshd.dir, "clanka"))
      return RemoteExecutor.start({
        argv: [...sshd.ssh, "-T", "--", sshd.alias, `'${remoteBin}' executor -C '${directory}'`],
        label: sshd.alias,
        ssh: { host: sshd.alias, remoteBin },
      })
    },
    stop: async () => sshd?.stop(),
  },
]

const quiet: Pick<ExecuteOptions, "onTaskComplete" | "onSubagent"> = {
  onTaskComplete: () => {},
  onSubagent: async () => "",
}

async function run(executor: Executor, options: Partial<ExecuteOptions> & { script: string }): Promise<string> {
  let printed = ""
  for await (const text of executor.execute({ ...quiet, ...options })) printed += text
  return printed
}

/** What the execute printed before it ended, and the error it ended with. */
async function runToFailure(executor: Executor, options: Partial<ExecuteOptions> & { script: string }) {
  let printed = ""
  try {
    for await (const text of executor.execute({ ...quiet, ...options })) printed += text
  } catch (error) {
    return { printed, error: error as Error }
  }
  throw new Error(`expected the execute to fail; it printed ${JSON.stringify(printed)}`)
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error("expected a rejection")
    },
    (error: Error) => error,
  )
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

for (const kind of KINDS) {
  describe.skipIf(!kind.available)(kind.name, () => {
    const directory = realpathSync(temporaryDirectory("clanka-contract-"))
    let executor: Executor

    beforeAll(async () => {
      writeFileSync(join(directory, "hello.txt"), "hello\n")
      writeFileSync(join(directory, "AGENTS.md"), "Be brief.\n")
      executor = await kind.open(directory)
    })

    afterAll(async () => {
      await executor.close()
      await kind.stop?.()
    })

    test("capabilities: the directory, its AGENTS.md, the declarations of its tools, the versions", async () => {
      const capabilities = await executor.capabilities()
      expect(capabilities.directory).toBe(directory)
      expect(capabilities.agentsMd).toBe("Be brief.\n")
      expect(capabilities.toolsDts).toContain("declare function readFile(options: { path: string;")
      expect(capabilities.toolsDts).toContain("declare function taskComplete(output: string): Promise<void>")
      expect(capabilities.supportsSearch).toBe(true)
      expect(capabilities.protocolVersion).toBe(1)
      expect(capabilities.version).toBe(VERSION)
    })

    test("execute streams console output in order, across awaits", async () => {
      const chunks: string[] = []
      for await (const text of executor.execute({
        ...quiet,
        script: 'console.log("one"); await sleep(30); console.log(await readFile({ path: "hello.txt" })); console.log({ a: [1] })',
      })) {
        chunks.push(text)
      }
      expect(chunks.join("")).toBe("one\nhello\n\n{ a: [ 1 ] }\n")
      expect(chunks.length).toBeGreaterThanOrEqual(2)
    })

    test("a script that throws: its output, then a ScriptError with the one-line reason", async () => {
      const { printed, error } = await runToFailure(executor, { script: 'console.log("before")\nthrow new Error("broken")' })
      expect(error).toBeInstanceOf(ScriptError)
      expect(error.message).toBe("Error: broken (line 2)")
      expect(printed).toBe('before\nError: broken (line 2)\n  2 | throw new Error("broken")\n')
    })

    test("with onReport, the report of a failed script comes there, after its output, not in it", async () => {
      for (const [script, report] of [
        ['console.log("before")\nthrow new Error("broken")', 'Error: broken (line 2)\n  2 | throw new Error("broken")\n'],
        ["console.log('before'); for (;;) {}", "\n[script timed out after 0.3 s and was stopped]\n"],
      ]) {
        const events: string[] = []
        let printed = ""
        try {
          for await (const text of executor.execute({ ...quiet, script: script!, timeoutMs: 300, onReport: (text) => void events.push(`report:${text}`) })) {
            printed += text
            events.push(`output:${text}`)
          }
        } catch (error) {
          events.push(`error:${(error as Error).name}`)
        }
        expect(printed).toBe("before\n")
        expect(events.slice(-2)).toEqual([`report:${report}`, "error:ScriptError"])
      }
    })

    test("a rejected tool call is the script's error, with the tool's message", async () => {
      const { error } = await runToFailure(executor, { script: 'await bash({ command: "echo out; exit 3" })' })
      expect(error).toBeInstanceOf(ScriptError)
      expect(error.message).toBe("Error: bash: exit code 3; output: (line 1)")
    })

    test("a runaway script is stopped at its time limit and the executor goes on serving", async () => {
      const { printed, error } = await runToFailure(executor, { script: "for (;;) {}", timeoutMs: 300 })
      expect(error).toBeInstanceOf(ScriptError)
      expect(error.message).toBe("script timed out after 0.3 s and was stopped")
      expect(printed).toBe("\n[script timed out after 0.3 s and was stopped]\n")
      expect(await run(executor, { script: "console.log(1 + 1)" })).toBe("2\n")
    })

    test("cancel ends the execute with a CancelledError and kills what the script started", async () => {
      const pidFile = join(directory, "cancel.pid")
      const controller = new AbortController()
      const done = runToFailure(executor, {
        script: `await bash({ command: "echo $$ > cancel.pid; exec sleep 30" })`,
        signal: controller.signal,
      })
      await until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "", "the pid file", 5000)
      const pid = Number(readFileSync(pidFile, "utf8"))
      expect(alive(pid)).toBe(true)
      controller.abort()
      const { error } = await done
      expect(error).toBeInstanceOf(CancelledError)
      await until(() => !alive(pid), "the process to end", 5000)
    })

    test("taskComplete reaches onTaskComplete; the script runs to its end", async () => {
      const summaries: string[] = []
      const printed = await run(executor, {
        script: 'await taskComplete("all done"); console.log("after")',
        onTaskComplete: (summary) => summaries.push(summary),
      })
      expect(summaries).toEqual(["all done"])
      expect(printed).toBe("after\n")
    })

    test("delegate() is answered by onSubagent; a failed sub-agent rejects the script's call", async () => {
      const prompts: string[] = []
      const printed = await run(executor, {
        script: 'console.log(await delegate("find the bug")); try { await delegate("fail") } catch (e) { console.log("caught", e.message) }',
        onSubagent: async (prompt) => {
          prompts.push(prompt)
          if (prompt === "fail") throw new Error("sub-agent failed: no model")
          return `summary of ${prompt}`
        },
      })
      expect(prompts).toEqual(["find the bug", "fail"])
      expect(printed).toBe("summary of find the bug\ncaught delegate: sub-agent failed: no model\n")
    })

    test("several executes run at once, each with its own output", async () => {
      // The slow one ends only once the fast one has (told by a file this test writes then), or
      // after 20 s alone: executes run one after the other would end slow first.
      const signal = join(directory, "fast-ended")
      const slow = run(executor, {
        script: `for (let i = 0; i < 400 && (await readFile({ path: "fast-ended" })) === null; i++) await sleep(50)
console.log("slow")`,
      })
      const fast = run(executor, { script: 'console.log("fast")' })
      const order: string[] = []
      await Promise.all([
        slow.then(() => order.push("slow")),
        fast.then(() => {
          order.push("fast")
          writeFileSync(signal, "")
        }),
      ])
      rmSync(signal)
      expect(order).toEqual(["fast", "slow"])
      expect(await slow).toBe("slow\n")
      expect(await fast).toBe("fast\n")
    }, 30_000)

    test("executeUnsafe: a tool's result; bad parameters, an unknown tool and a failing tool each their own error", async () => {
      expect(await executor.executeUnsafe("readFile", { path: "hello.txt" })).toBe("hello\n")
      expect(await executor.executeUnsafe("readFile", { path: "missing.txt" })).toBeNull()

      const invalid = await rejection(executor.executeUnsafe("readFile", { file: "hello.txt" }))
      expect(invalid).toBeInstanceOf(InvalidParamsError)
      expect(invalid.message).toStartWith("readFile: invalid parameters: path: Invalid key")

      const unknown = await rejection(executor.executeUnsafe("frob", {}))
      expect(unknown).toBeInstanceOf(UnknownToolError)
      expect(unknown.message).toStartWith('unknown tool "frob"; tools: readFile, writeFile')

      const failed = await rejection(executor.executeUnsafe("bash", { command: "echo no; exit 4" }))
      expect(failed).toBeInstanceOf(ToolError)
      expect(failed).not.toBeInstanceOf(InvalidParamsError)
      expect(failed.message).toBe("bash: exit code 4; output:\nno\n")
    })
  })
}
