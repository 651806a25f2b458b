// The RemoteExecutor against a real `clanka executor` child (through --executor), and against
// commands that go wrong in each of the ways a user can meet.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CancelledError, ExecutorLostError, ScriptError, ToolError } from "../../src/errors.ts"
import { connectExecutor } from "../../src/executor/connect.ts"
import type { ExecuteOptions, Executor } from "../../src/contract.ts"
import { InvalidParamsError } from "../../src/errors.ts"
import { VERSION } from "../../src/version.ts"
import { BUN, MAIN } from "../protocol/raw-session.ts"

let dir: string
let remote: Executor
const serverCommand = () => `'${BUN}' '${MAIN}' executor -C '${dir}'`

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "clanka-remote-")))
  writeFileSync(join(dir, "hello.txt"), "hello\n")
  remote = await connectExecutor({ executor: serverCommand() })
})

afterAll(async () => {
  await remote.close()
  rmSync(dir, { recursive: true, force: true })
})

const noSubagents: Pick<ExecuteOptions, "onTaskComplete" | "onSubagent"> = {
  onTaskComplete: () => {},
  onSubagent: async () => "",
}

async function run(executor: Executor, options: Partial<ExecuteOptions> & { script: string }): Promise<string> {
  let printed = ""
  for await (const text of executor.execute({ ...noSubagents, ...options })) printed += text
  return printed
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error("expected a failure")
}

test("capabilities come from the far side", async () => {
  const capabilities = await remote.capabilities()
  expect(capabilities.directory).toBe(dir)
  expect(capabilities.protocolVersion).toBe(1)
  expect(capabilities.version).toBe(VERSION)
  // Asked again, it asks again.
  expect((await remote.capabilities()).directory).toBe(dir)
})

test("execute streams the output, and a throwing script ends with its ScriptError after it", async () => {
  expect(await run(remote, { script: 'console.log(await ls(".")); console.log(await readFile({ path: "hello.txt" }))' })).toBe(
    "[ 'hello.txt' ]\nhello\n\n",
  )
  let printed = ""
  const error = await failure(
    (async () => {
      for await (const text of remote.execute({ ...noSubagents, script: 'console.log("partial"); null.x' })) printed += text
    })(),
  )
  expect(error).toBeInstanceOf(ScriptError)
  expect(error.message).toBe("TypeError: null is not an object (evaluating 'null.x') (line 1)")
  expect(printed).toBe(`partial\nTypeError: null is not an object (evaluating 'null.x') (line 1)\n  1 | console.log("partial"); null.x\n`)
})

test("sub-agent requests are answered through onSubagent; taskComplete reaches onTaskComplete", async () => {
  const prompts: string[] = []
  const summaries: string[] = []
  const printed = await run(remote, {
    script: 'const a = await delegate("count files"); console.log(a); await taskComplete("done: " + a)',
    onSubagent: async (prompt) => {
      prompts.push(prompt)
      return "3 files"
    },
    onTaskComplete: (summary) => summaries.push(summary),
  })
  expect(printed).toBe("3 files\n")
  expect(prompts).toEqual(["count files"])
  expect(summaries).toEqual(["done: 3 files"])
  // A failing sub-agent rejects the script's delegate() with its message.
  const output = await run(remote, {
    script: 'try { await delegate("x") } catch (e) { console.log("caught: " + e.message) }',
    onSubagent: async () => {
      throw new Error("model unreachable")
    },
  })
  expect(output).toBe("caught: delegate: model unreachable\n")
})

test("aborting the signal cancels the remote script, and the executor goes on", async () => {
  const abort = new AbortController()
  const started = Date.now()
  const error = await failure(
    (async () => {
      for await (const text of remote.execute({ ...noSubagents, script: 'console.log("go"); await sleep(60000)', signal: abort.signal })) {
        expect(text).toBe("go\n")
        abort.abort()
      }
    })(),
  )
  expect(error).toBeInstanceOf(CancelledError)
  expect(Date.now() - started).toBeLessThan(1000)
  expect(await run(remote, { script: "console.log(1 + 1)" })).toBe("2\n")
})

test("a consumer that stops iterating early stops the script too", async () => {
  for await (const text of remote.execute({
    ...noSubagents,
    script: 'console.log("first"); await sleep(300); await writeFile({ path: "late.txt", content: "x" })',
  })) {
    expect(text).toBe("first\n")
    break
  }
  await Bun.sleep(600)
  expect(existsSync(join(dir, "late.txt"))).toBe(false)
})

test("a slow consumer holds the remote script back: past 16 MB unread, it waits at console.log", async () => {
  // 24 MB printed: the client stops reading at 16 MB, the pipe and the far side's window fill,
  // and the script blocks before it writes the marker, until the consumer reads on.
  const lines = 24_000
  const marker = join(dir, "remote-flow-done")
  const script = `for (let i = 0; i < ${lines}; i++) console.log("x".repeat(999)); await writeFile({ path: "remote-flow-done", content: "1" })`
  const iterator = remote.execute({ ...noSubagents, script })[Symbol.asyncIterator]()
  let chars = (await iterator.next()).value!.length
  // Unread, the whole output reaches this side in about 0.4 s here; a second is ample.
  await Bun.sleep(1000)
  expect(existsSync(marker)).toBe(false)
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) chars += next.value.length
  expect(chars).toBe(lines * 1000)
  expect(existsSync(marker)).toBe(true)
}, 20_000)

test("executeUnsafe returns the tool's result or its error, as the local executor would", async () => {
  expect(await remote.executeUnsafe("readFile", { path: "hello.txt" })).toBe("hello\n")
  expect(await remote.executeUnsafe("readFile", { path: "missing.txt" })).toBeNull()
  const invalid = await failure(remote.executeUnsafe("readFile", { path: 3 }))
  expect(invalid).toBeInstanceOf(InvalidParamsError)
  expect(invalid.message).toBe("readFile: invalid parameters: path: Invalid type: Expected string but received 3")
  const failed = await failure(remote.executeUnsafe("updateTodo", { id: 99, completed: true }))
  expect(failed).toBeInstanceOf(ToolError)
  expect(failed.message).toBe("updateTodo: no todo with id 99; listTodos() shows the ids")
})

test("a request too large for the protocol fails at once instead of hanging", async () => {
  const error = await failure(remote.executeUnsafe("writeFile", { path: "big.txt", content: "x".repeat(9 * 1024 * 1024) }))
  expect(error).toBeInstanceOf(ToolError)
  expect(error.message).toBe("the executeUnsafe request is 9.0 MiB; the executor protocol takes at most 8 MiB per message")
  expect(existsSync(join(dir, "big.txt"))).toBe(false)
  expect(await remote.executeUnsafe("readFile", { path: "hello.txt" })).toBe("hello\n")
})

/** A stand-in executor written in sh: answers the first request with `reply`, then waits. */
function fakeExecutor(name: string, reply: string): string {
  const path = join(dir, name)
  writeFileSync(path, `#!/bin/sh\nread line\nprintf '%s\\n' '${reply}'\ncat > /dev/null\n`)
  chmodSync(path, 0o755)
  return path
}

test("a protocol version mismatch fails with one line naming both versions", async () => {
  const caps = { toolsDts: "", agentsMd: null, supportsSearch: false, protocolVersion: 99, version: "9.0.0", directory: "/" }
  const command = fakeExecutor("v99.sh", JSON.stringify({ jsonrpc: "2.0", id: 1, result: caps }))
  const error = await failure(connectExecutor({ executor: command }))
  expect(error).toBeInstanceOf(ExecutorLostError)
  expect(error.message).toBe(
    `the executor command (${command}) speaks executor protocol version 99 (clanka 9.0.0) but this clanka speaks version 1 (clanka ${VERSION}); install the same clanka version on both sides`,
  )
})

test("a command that prints something else than protocol is reported as such", async () => {
  const error = await failure(connectExecutor({ executor: "echo Welcome to the box" }))
  expect(error).toBeInstanceOf(ExecutorLostError)
  expect(error.message).toBe(
    'the executor command (echo Welcome to the box) wrote something that is not protocol: "Welcome to the box"; the command must run `clanka executor` and print nothing else on stdout',
  )
})

test("a command that does not exist is reported with the shell's line", async () => {
  // The shell's own words differ between machines (dash, bash): ask this machine's /bin/sh.
  const shell = Bun.spawnSync(["/bin/sh", "-c", "clanka-no-such-command executor"], { stdin: "ignore" })
  expect(shell.exitCode).toBe(127)
  const said = shell.stderr.toString().trim().split("\n").at(-1)!.replace(/[.;]+$/, "")
  expect(said).toContain("clanka-no-such-command")
  const error = await failure(connectExecutor({ executor: "clanka-no-such-command executor" }))
  expect(error).toBeInstanceOf(ExecutorLostError)
  expect(error.message).toBe(`the executor command was not found (clanka-no-such-command executor): ${said}; check --executor`)
})

test("a command that exits before answering is reported with its last stderr line", async () => {
  const error = await failure(connectExecutor({ executor: "echo 'no such directory' >&2; exit 2" }))
  expect(error.message).toBe(
    "the executor command (echo 'no such directory' >&2; exit 2) exited (exit code 2) before answering: no such directory; check that it runs `clanka executor`",
  )
})

test("a Bun crash report names the error, not the Bun version line that ends it", async () => {
  const report = "printf '1 | x\\n    ^\\nerror: ENOSPC: no space left on device\\n      at open (x.ts:1:1)\\n\\nBun v1.4.5 (Linux x64)\\n' >&2; exit 1"
  const error = await failure(connectExecutor({ executor: report }))
  expect(error.message).toBe(
    `the executor command (${report}) exited (exit code 1) before answering: error: ENOSPC: no space left on device; check that it runs \`clanka executor\``,
  )
})

test("clanka's own error on the far side is passed on as it is", async () => {
  const command = `'${BUN}' '${MAIN}' executor -C '${join(dir, "missing")}'`
  const error = await failure(connectExecutor({ executor: command }))
  expect(error).toBeInstanceOf(ExecutorLostError)
  expect(error.message).toBe(
    `the executor command (${command}) failed: executor directory ${join(dir, "missing")} does not exist; pass an existing directory with -C`,
  )
})

test("the far side dying mid-execute rejects every pending call within a second", async () => {
  const pidFile = join(dir, "executor.pid")
  const executor = await connectExecutor({ executor: `echo $$ > '${pidFile}'; exec ${serverCommand()}` })
  try {
    const pid = Number(readFileSync(pidFile, "utf8"))
    const printed: string[] = []
    const executing = (async () => {
      for await (const text of executor.execute({ ...noSubagents, script: 'console.log("working"); await sleep(60000)' })) {
        printed.push(text)
        process.kill(pid, "SIGKILL")
      }
    })()
    const unsafe = executor.executeUnsafe("sleep", 60000)
    const started = Date.now()
    const [executeError, unsafeError] = await Promise.all([failure(executing), failure(unsafe)])
    expect(Date.now() - started).toBeLessThan(1000)
    expect(printed).toEqual(["working\n"])
    for (const error of [executeError, unsafeError]) {
      expect(error).toBeInstanceOf(ExecutorLostError)
      expect(error.message).toStartWith(`the executor command (echo $$ > '${pidFile}'; exec `)
      expect(error.message).toEndWith("stopped unexpectedly (signal SIGKILL); check the host and run again")
    }
    // Later calls fail the same way instead of hanging.
    expect(await failure(executor.capabilities())).toBe(executeError)
  } finally {
    await executor.close()
  }
})
