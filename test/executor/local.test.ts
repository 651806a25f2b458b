import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { CancelledError, ScriptError } from "../../src/errors.ts"
import { LocalExecutor } from "../../src/executor/local.ts"
import { PROTOCOL_VERSION, VERSION } from "../../src/version.ts"
import { isRunning } from "../support/processes.ts"
import { temporaryDirectory } from "../support/temp.ts"

const dir = temporaryDirectory("clanka-local-")
let executor: LocalExecutor

beforeAll(async () => {
  executor = new LocalExecutor({ directory: dir })
})
afterAll(() => executor.close())

const isAlive = async (pid: number) => isRunning(pid)

interface Outcome {
  output: string
  error?: Error
  summaries: string[]
}

async function run(script: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<Outcome> {
  const summaries: string[] = []
  let output = ""
  try {
    for await (const text of executor.execute({
      script,
      ...options,
      onTaskComplete: (summary) => summaries.push(summary),
      onSubagent: async (prompt) => `sub-agent did: ${prompt}`,
    })) output += text
    return { output, summaries }
  } catch (error) {
    return { output, error: error as Error, summaries }
  }
}

describe("LocalExecutor", () => {
  test("capabilities name the directory, versions and AGENTS.md", async () => {
    await writeFile(join(dir, "AGENTS.md"), "Use tabs.\n")
    const caps = await executor.capabilities()
    expect(caps.directory).toBe(dir)
    expect(caps.protocolVersion).toBe(PROTOCOL_VERSION)
    expect(caps.version).toBe(VERSION)
    expect(caps.agentsMd).toBe("Use tabs.\n")
    expect(caps.supportsSearch).toBe(true)
    expect(caps.toolsDts).toContain("declare function taskComplete(output: string): Promise<void>")
  })

  test("console output is formatted the way Node formats it", async () => {
    const { output, error } = await run(
      `console.log("a", 1, { b: [1, 2, { c: 3 }] }); console.error(new Map([[1, "x"]])); console.log([1, "2"])`,
    )
    expect(error).toBeUndefined()
    expect(output).toBe(`a 1 { b: [ 1, 2, { c: 3 } ] }\nMap(1) { 1 => 'x' }\n[ 1, '2' ]\n`)
  })

  test("console.log %o shows three levels, deeper objects as [Object] and [Array] (not a made-up key)", async () => {
    const { output } = await run(`console.log("%o", { a: { b: { c: { d: 1 } } } }); console.log("%o", [[[[1]]]])`)
    expect(output).toBe("{ a: { b: { c: [Object] } } }\n[ [ [ [Array], [length]: 1 ], [length]: 1 ], [length]: 1 ]\n")
  })

  test("top-level await and tool calls work; tool results are the script's own arrays", async () => {
    const { output } = await run(
      `await writeFile({ path: "sub/a.txt", content: "hi" }); const names = await ls("sub"); console.log(Array.isArray(names), names)`,
    )
    expect(output).toBe("true [ 'a.txt' ]\n")
    expect(await readFile(join(dir, "sub/a.txt"), "utf8")).toBe("hi")
  })

  test("only the tools, console and web APIs are globals", async () => {
    const { output } = await run(
      `console.log([typeof require, typeof process, typeof Bun, typeof module, typeof fetch, typeof readFile].join(" "))`,
    )
    expect(output).toBe("undefined undefined undefined undefined function function\n")
  })

  test("variables do not survive between executes", async () => {
    await run(`globalThis.leftover = 1; var kept = 2`)
    const { output } = await run(`console.log(typeof leftover, typeof kept)`)
    expect(output).toBe("undefined undefined\n")
  })

  test("a thrown error shows its message and the script line", async () => {
    const { output, error } = await run(`console.log("before")\n\nthrow new Error("boom")`)
    expect(output).toBe(`before\nError: boom (line 3)\n  3 | throw new Error("boom")\n`)
    expect(error).toBeInstanceOf(ScriptError)
    expect(error!.message).toBe("Error: boom (line 3)")
  })

  test("a script that does not parse shows the parser's message, line and column, with a caret under it", async () => {
    const { output, error } = await run(`const a = 1\nconst b = ;`)
    expect(output).toBe(`SyntaxError: Unexpected token ';' (line 2, column 11)\n  2 | const b = ;\n                ^\n`)
    expect(error!.message).toBe("SyntaxError: Unexpected token ';' (line 2, column 11)")
  })

  test("a rejected tool call shows the tool name, its message and the line of the call", async () => {
    const { output, error } = await run(`\nawait updateTodo({ id: 12345 })`)
    expect(output).toBe(
      "Error: updateTodo: no todo with id 12345; listTodos() shows the ids (line 2)\n  2 | await updateTodo({ id: 12345 })\n",
    )
    expect(error).toBeInstanceOf(ScriptError)
  })

  test("a tool call that fails while the script awaits something else is the script's to handle, on a worker that ran scripts before", async () => {
    for (let i = 0; i < 3; i++) expect((await run(`console.log(${i})`)).output).toBe(`${i}\n`)
    // The call fails at once; the script only looks at it after the 0.3 s bash.
    const failed = await run(`const call = bash({ command: "exit 3" })\nawait bash({ command: "sleep 0.3" })\nawait call`)
    expect(failed.error).toBeInstanceOf(ScriptError)
    expect(failed.error!.message).toBe("Error: bash: exit code 3 (no output) (line 1)")
    const caught = await run(`const call = bash({ command: "exit 3" })\nawait bash({ command: "sleep 0.3" })\ntry { await call } catch (e) { console.log("caught:", e.message) }`)
    expect(caught).toEqual({ output: "caught: bash: exit code 3 (no output)\n", summaries: [] })
    // Promise.all, .catch and .then look at the call too.
    const all = await run(`const call = bash({ command: "exit 4" })\nawait sleep(300)\nconsole.log(await call.catch((e) => "caught " + e.message), await Promise.all([bash({ command: "echo hi" })]))`)
    expect(all).toEqual({ output: "caught bash: exit code 4 (no output) [ 'hi\\n' ]\n", summaries: [] })
  })

  test("invalid tool parameters reject with a readable message the script can catch", async () => {
    const { output, error } = await run(`try { await updateTodo({ id: "x" }) } catch (e) { console.log(e.message) }`)
    expect(error).toBeUndefined()
    expect(output).toBe(`updateTodo: invalid parameters: id: Invalid type: Expected number but received "x"\n`)
  })

  test("taskComplete and delegate reach the callbacks", async () => {
    const { output, summaries } = await run(`console.log(await delegate("count files")); await taskComplete("all done")`)
    expect(output).toBe("sub-agent did: count files\n")
    expect(summaries).toEqual(["all done"])
  })

  for (const [name, script] of [
    ["a synchronous infinite loop", "while (true) {}"],
    ["an infinite loop after an await", "await sleep(1); console.log('spinning'); while (true) {}"],
  ]) {
    test(`${name} is stopped at the time limit and the executor keeps serving`, async () => {
      const started = Date.now()
      const { output, error } = await run(script!, { timeoutMs: 300 })
      expect(Date.now() - started).toBeLessThan(3000)
      expect(error).toBeInstanceOf(ScriptError)
      expect(error!.message).toBe("script timed out after 0.3 s and was stopped")
      expect(output).toEndWith("\n[script timed out after 0.3 s and was stopped]\n")
      expect((await run(`console.log("still serving")`)).output).toBe("still serving\n")
    })
  }

  test("cancelling an execute kills the script and the processes it started", async () => {
    const abort = new AbortController()
    const pidFile = join(dir, "pid")
    const pending = run(`await bash({ command: "sleep 30 & echo $! > pid; wait" })`, { signal: abort.signal })
    let pid = 0
    for (let i = 0; i < 200 && !pid; i++) {
      await Bun.sleep(20)
      pid = Number(await readFile(pidFile, "utf8").catch(() => "0"))
    }
    expect(pid).toBeGreaterThan(0)
    abort.abort()
    const { error } = await pending
    expect(error).toBeInstanceOf(CancelledError)
    await Bun.sleep(200)
    expect(await isAlive(pid)).toBe(false)
  })

  test("several executes run at once with their output kept apart", async () => {
    const [a, b] = await Promise.all([
      run(`for (let i = 0; i < 3; i++) { console.log("a" + i); await sleep(5) }`),
      run(`for (let i = 0; i < 3; i++) { console.log("b" + i); await sleep(5) }`),
    ])
    expect(a.output).toBe("a0\na1\na2\n")
    expect(b.output).toBe("b0\nb1\nb2\n")
  })

  test("leftover timers of a finished script do not print into the next one", async () => {
    await run(`setInterval(() => console.log("tick"), 1)`)
    const { output } = await run(`await sleep(30); console.log("clean")`)
    expect(output).toBe("clean\n")
  })

  test("the timers of a finished script stop: an interval it left ticking does not tick on", async () => {
    // Each tick fetches from a local server, so ticks are seen from outside the sandbox even
    // after the script ended (its own output and tool calls are dropped then).
    const seen: number[] = []
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        seen.push(Number(new URL(request.url).searchParams.get("n")))
        return new Response("ok")
      },
    })
    try {
      const script = `let n = 0
setInterval(() => { fetch("${server.url}tick?n=" + n++).catch(() => {}) }, 5)
setTimeout(() => { fetch("${server.url}late?n=-1").catch(() => {}) }, 200)
await sleep(100)
console.log(n)`
      const { output, error } = await run(script)
      expect(error).toBeUndefined()
      const issued = Number(output)
      expect(issued).toBeGreaterThan(0)
      for (let i = 0; i < 200 && seen.length < issued; i++) await Bun.sleep(10)
      await Bun.sleep(300)
      expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: issued }, (_, i) => i))
    } finally {
      server.stop(true)
    }
  })

  test("executeUnsafe calls one tool; delegate says it needs clanka run", async () => {
    await executor.executeUnsafe("writeFile", { path: "u.txt", content: "x" })
    expect(await executor.executeUnsafe("readFile", { path: "u.txt" })).toBe("x")
    await expect(executor.executeUnsafe("delegate", "hi")).rejects.toThrow("delegate: sub-agents need a model: use `clanka run`")
  })
})

describe("errors name the line and column of the script as written", () => {
  /** The report of a script that fails, without the output before it. */
  async function failure(script: string): Promise<string> {
    const { output, error } = await run(script)
    expect(error).toBeInstanceOf(ScriptError)
    expect(output.endsWith("\n")).toBe(true)
    expect(output).toContain(error!.message)
    return output
  }

  test("a syntax error in a one-line script is on line 1, at its own column", async () => {
    expect(await failure("const x = ;")).toBe("SyntaxError: Unexpected token ';' (line 1, column 11)\n  1 | const x = ;\n                ^\n")
    expect(await failure("foo(1))")).toBe("SyntaxError: Unexpected token ')' (line 1, column 7)\n  1 | foo(1))\n            ^\n")
  })

  test("the column is that of the unexpected token, not of the one after it", async () => {
    expect(await failure("const a = 1\nf(a) + 1)\nconsole.log(a)")).toBe(
      "SyntaxError: Unexpected token ')' (line 2, column 9)\n  2 | f(a) + 1)\n              ^\n",
    )
  })

  test("a script that ends while a block or expression is open points just past its last character", async () => {
    expect(await failure("const a = 1\nif (a) {\n  console.log(a)\n")).toBe(
      "SyntaxError: Unexpected end of script (line 3, column 17)\n  3 | console.log(a)\n                    ^\n",
    )
    expect(await failure("x = 1 +")).toBe("SyntaxError: Unexpected end of script (line 1, column 8)\n  1 | x = 1 +\n             ^\n")
  })

  test("an unterminated template or string points at where it opens", async () => {
    expect(await failure("const a = 1\nconst y = `abc\nconsole.log(y)")).toBe(
      "SyntaxError: Unterminated template literal (line 2, column 11)\n  2 | const y = `abc\n                ^\n",
    )
    expect(await failure("console.log('abc)")).toBe(
      "SyntaxError: Unterminated string literal (line 1, column 13)\n  1 | console.log('abc)\n                  ^\n",
    )
  })

  test("the caret lines up under indented lines and tabs", async () => {
    expect(await failure("if (true) {\n\t\tlet a = 1;\tb c\n}")).toBe(
      "SyntaxError: Unexpected identifier 'c' (line 2, column 16)\n" +
        "  2 | let a = 1;\tb c\n" +
        "                \t  ^\n",
    )
  })

  test("a long line is shown around the column", async () => {
    const output = await failure(`const s = "${"x".repeat(300)}"; const y = ;`)
    const [head, source, caret] = output.split("\n")
    expect(head).toBe("SyntaxError: Unexpected token ';' (line 1, column 325)")
    expect(source).toStartWith("  1 | …xxx")
    expect(source).toEndWith('"; const y = ;')
    expect(source!.length).toBeLessThan(130)
    expect(caret!.length).toBe(source!.length)
    expect(caret!.trim()).toBe("^")
  })

  test("a runtime error in a fenced script names the line as the model wrote it", async () => {
    expect(await failure("```js\nconsole.log(1)\nnull.x\n```")).toBe(
      "1\nTypeError: null is not an object (evaluating 'null.x') (line 3)\n  3 | null.x\n",
    )
  })

  test("a runtime error on a long line shows the part of it around the error, not the whole line", async () => {
    const a = "a".repeat(3000)
    const b = "b".repeat(3000)
    const report = await failure(`const s = "${a}"; null.x; const t = "${b}"`)
    const [summary, source] = report.split("\n")
    expect(summary).toBe("TypeError: null is not an object (evaluating 'null.x') (line 1)")
    expect(source).toContain("; null.x; ")
    expect(source!.length).toBeLessThan(140)
    // On a later line the column is the line's own.
    const second = (await failure(`const u = 1\nconst s = "${a}"; null.y; const t = "${b}"`)).split("\n")[1]
    expect(second).toContain("; null.y; ")
    expect(second!.length).toBeLessThan(140)
  })

  test("a runtime error on the line of a repaired template shows the line as the model wrote it", async () => {
    expect(await failure("await taskComplete(`use `x``); null.y")).toBe(
      "TypeError: null is not an object (evaluating 'null.y') (line 1)\n  1 | await taskComplete(`use `x``); null.y\n",
    )
  })
})

describe("script repair in the sandbox", () => {
  test("a script wrapped in a markdown fence runs without the fence", async () => {
    const { output, error } = await run("```js\nconsole.log('fenced')\n```")
    expect(error).toBeUndefined()
    expect(output).toBe("fenced\n")
  })

  test("unescaped backticks in a writeFile template are repaired and written as they are", async () => {
    const script = "await writeFile({ path: 'doc.md', content: `Run `npm test` with ${NODE}` })\nconsole.log('ok')"
    const { output, error } = await run(script)
    expect(error).toBeUndefined()
    expect(output).toBe("ok\n")
    expect(await readFile(join(dir, "doc.md"), "utf8")).toBe("Run `npm test` with ${NODE}")
  })

  test("a script the repair cannot fix reports the original parse error", async () => {
    const plain = await run("console.log(`a `b` c`)\nconst = 1")
    expect(plain.error).toBeInstanceOf(ScriptError)
    expect(plain.error!.message).toBe("SyntaxError: Unexpected identifier 'b'. Expected ')' to end an argument list. (line 1, column 17)")
    expect(plain.output).toBe(
      "SyntaxError: Unexpected identifier 'b'. Expected ')' to end an argument list. (line 1, column 17)\n" +
        "  1 | console.log(`a `b` c`)\n" +
        "                      ^\n",
    )
    // Fenced: the repair strips the fence and still cannot parse. The error reported is the one
    // of the script as written, so its line number and source line match what the model wrote.
    const fenced = await run("```js\nconsole.log(`a `b` c`)\nconst = 1\n```")
    expect(fenced.error!.message).toBe("SyntaxError: Unexpected identifier 'a' (line 2, column 14)")
    expect(fenced.output).toBe("SyntaxError: Unexpected identifier 'a' (line 2, column 14)\n  2 | console.log(`a `b` c`)\n                   ^\n")
  })
})

describe("flow control", () => {
  test("a script printing faster than its output is read waits for the reader", async () => {
    const marker = join(dir, "flow-done")
    const script = `for (let i = 0; i < 5000; i++) console.log("x".repeat(999)); await writeFile({ path: "flow-done", content: "1" })`
    const iterator = executor.execute({ script, onTaskComplete() {}, onSubagent: async () => "" })[Symbol.asyncIterator]()
    let chars = (await iterator.next()).value!.length
    await Bun.sleep(300)
    // 5 MB printed, 1 MB window: the script is held at console.log until the reader catches up.
    expect(await Bun.file(marker).exists()).toBe(false)
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) chars += next.value.length
    expect(chars).toBe(5000 * 1000)
    expect(await Bun.file(marker).exists()).toBe(true)
  })

  test("a reader that stops early cancels the script", async () => {
    const script = `for (;;) console.log("more")`
    for await (const _ of executor.execute({ script, onTaskComplete() {}, onSubagent: async () => "" })) break
    const { output } = await run(`console.log("next")`)
    expect(output).toBe("next\n")
  })
})

// Errors that escape a script through timers and unhandled promises are tested through
// `clanka exec` (test/cli/exec.test.ts): bun test handles those in workers itself.
describe("scripts that reach outside their realm", () => {
  test("reflection on the globals finds the script's own realm, not the executor's", async () => {
    const { output } = await run(
      `const g = console.log.constructor("return this")(); const h = setTimeout.constructor("return this")(); console.log(typeof g.process, typeof g.Bun, typeof h.process)`,
    )
    expect(output).toBe("undefined undefined undefined\n")
  })

  test("a script that closes the hidden wrapper itself still ends", async () => {
    const started = Date.now()
    const { output, error } = await run(`console.log("in")}, 1); (function () { console.log("out") `)
    expect(Date.now() - started).toBeLessThan(5000)
    expect(error).toBeUndefined()
    expect(output).toBe("out\n")
  })

  test("a script that closes the wrapper and throws at its top level fails with its error", async () => {
    const { output, error } = await run(`}, 1); throw new Error("top"); (function () {`)
    expect(error?.message).toBe("Uncaught Error: top (line 1)")
    expect(output).toContain("Error: top (line 1)")
  })

  test("the route through a web API's constructor finds no process (test/sandbox/escape-probes.test.ts has the rest)", async () => {
    const { output } = await run(`const g = URL.constructor("return this")(); console.log(typeof g.process, typeof g.Bun, URL.constructor === console.log.constructor)`)
    expect(output).toBe("undefined undefined true\n")
  })
})

test("close() kills processes that finished scripts and tool calls left running", async () => {
  const own = new LocalExecutor({ directory: dir })
  const pids: number[] = []
  for (const command of ["sleep 31 & echo $!", "sleep 32 & echo $!"]) {
    let text = ""
    for await (const chunk of own.execute({
      script: `console.log(await bash({ command: ${JSON.stringify(command)} }))`,
      onTaskComplete() {},
      onSubagent: async () => "",
    }))
      text += chunk
    pids.push(Number(text.trim()))
  }
  pids.push(Number(String(await own.executeUnsafe("bash", { command: "sleep 33 & echo $!" })).trim()))
  for (const pid of pids) expect(await isAlive(pid)).toBe(true)
  await own.close()
  await Bun.sleep(100)
  for (const pid of pids) expect(await isAlive(pid)).toBe(false)
})
