import { beforeAll, describe, expect, test } from "bun:test"
import { readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { BUN, clanka, MAIN } from "../support/cli.ts"
import { findProcess, ownSleep } from "../support/processes.ts"
import { temporaryDirectory } from "../support/temp.ts"

const dir = temporaryDirectory("clanka-cli-")
beforeAll(async () => {
  await writeFile(join(dir, "hello.txt"), "hello\nworld\n")
})

describe("clanka exec", () => {
  test("-e runs a script against -C DIR and prints its output", async () => {
    const result = await clanka(["exec", "-C", dir, "-e", `console.log(await readFile({ path: "hello.txt", startLine: 2 }))`])
    expect(result).toEqual({ code: 0, stdout: "world\n\n", stderr: "" })
  })

  test("reads the script from a file or from stdin", async () => {
    await writeFile(join(dir, "script.js"), `console.log((await ls(".")).length > 0)`)
    expect((await clanka(["exec", "-C", dir, join(dir, "script.js")])).stdout).toBe("true\n")
    expect((await clanka(["exec", "-C", dir, "-"], { stdin: "console.log(6 * 7)" })).stdout).toBe("42\n")
  })

  test("a script that throws exits 1 with one line on stderr; stdout is what it printed, only", async () => {
    const result = await clanka(["exec", "-C", dir, "-e", `console.log("a")\nthrow new TypeError("bad")`])
    expect(result).toEqual({ code: 1, stdout: "a\n", stderr: "clanka: the script failed: TypeError: bad (line 2)\n" })
    // The same through a child executor of its own (the protocol marks the report), and with --json.
    const remote = await clanka(["exec", "--executor", `${BUN} ${MAIN} executor -C ${dir}`, "-e", `console.log("a")\nthrow new TypeError("bad")`])
    expect(remote).toEqual({ code: 1, stdout: "a\n", stderr: "clanka: the script failed: TypeError: bad (line 2)\n" })
    const json = await clanka(["exec", "-C", dir, "--json", "-e", `console.log("a")\nthrow new TypeError("bad")`])
    expect(JSON.parse(json.stdout)).toMatchObject({ exitCode: 1, output: "a\n", error: "the script failed: TypeError: bad (line 2)" })
  })

  test("a one-line script that does not parse is reported at its own line and column", async () => {
    expect(await clanka(["exec", "-C", dir, "-e", "const x = ;"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "clanka: the script failed: SyntaxError: Unexpected token ';' (line 1, column 11)\n",
    })
    const early = await clanka(["exec", "-C", dir, "-e", "for (const f of await ls('.')) {\n  console.log(f)"])
    expect(early).toEqual({ code: 1, stdout: "", stderr: "clanka: the script failed: SyntaxError: Unexpected end of script (line 2, column 17)\n" })
  })

  test("a runaway script is stopped at --timeout", async () => {
    const result = await clanka(["exec", "-C", dir, "--timeout", "0.5", "-e", "while (true) {}"])
    expect(result.code).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr).toBe("clanka: the script failed: script timed out after 0.5 s and was stopped\n")
  })

  test("delegate without a model says sub-agents need clanka run", async () => {
    const result = await clanka(["exec", "-C", dir, "-e", `await delegate("x")`])
    expect(result.code).toBe(1)
    expect(result.stderr).toBe("clanka: the script failed: Error: delegate: sub-agents need a model: use `clanka run` (line 1)\n")
  })

  test("bad usage exits 2 with one line", async () => {
    expect(await clanka(["exec", "--frobnicate"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'clanka: unknown option "--frobnicate" (see clanka exec --help)\n',
    })
    const missing = await clanka(["exec", join(dir, "nope.js")])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe(`clanka: cannot read ${join(dir, "nope.js")}: ENOENT\n`)
    expect((await clanka(["exec", "--timeout", "soon", "-e", "1"])).stderr).toBe(
      'clanka: --timeout takes a number of seconds from 0.001 to 2147483 (about 24 days), got "soon"\n',
    )
  })
})

describe("clanka tool and clanka tools", () => {
  test("tool calls one tool and prints its JSON result", async () => {
    const write = await clanka(["tool", "-C", dir, "writeFile", JSON.stringify({ path: "out/new.txt", content: "x\n" })])
    expect(write).toEqual({ code: 0, stdout: "null\n", stderr: "" })
    expect(await readFile(join(dir, "out/new.txt"), "utf8")).toBe("x\n")
    const ls = await clanka(["tool", "-C", dir, "ls", "out"])
    expect(ls.stdout).toBe(`[\n  "new.txt"\n]\n`)
  })

  test("invalid parameters exit 2 naming the tool and the problem", async () => {
    const result = await clanka(["tool", "-C", dir, "updateTodo", `{"id":"a"}`])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(`clanka: updateTodo: invalid parameters: id: Invalid type: Expected number but received "a"\n`)
  })

  test("an unknown tool exits 2 and lists the tools", async () => {
    const result = await clanka(["tool", "frob"])
    expect(result.code).toBe(2)
    expect(result.stderr).toStartWith(`clanka: unknown tool "frob"; tools: readFile, writeFile`)
  })

  test("a failing tool exits 1 with one line on stderr after the output it had; stdout stays empty (it is only ever JSON)", async () => {
    const result = await clanka(["tool", "-C", dir, "bash", `{"command":"echo oops; echo >&2 two; exit 3"}`])
    expect(result).toEqual({ code: 1, stdout: "", stderr: "oops\ntwo\nclanka: bash: exit code 3\n" })
    expect(await clanka(["tool", "-C", dir, "removeFile", "nope.txt"])).toEqual({
      code: 1,
      stdout: "",
      stderr: "clanka: removeFile: nope.txt does not exist\n",
    })
  })

  test("tools prints the declarations the model sees", async () => {
    const result = await clanka(["tools"])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("declare function applyPatch(patch: string): Promise<string>\n")
    expect(result.stdout).toContain("declare function taskComplete(output: string): Promise<void>\n")
  })

  test("--version prints the version", async () => {
    const pkg = await Bun.file(join(import.meta.dir, "../../package.json")).json()
    expect(await clanka(["--version"])).toEqual({ code: 0, stdout: `clanka ${pkg.version}\n`, stderr: "" })
  })
})

test("clanka exec returns when the script ends, killing what it left running", async () => {
  const started = Date.now()
  const seconds = ownSleep("30.116")
  const script = `bash({ command: "sleep ${seconds} & echo $! > left.pid; wait" }); await sleep(300); console.log("bye")`
  const result = await clanka(["exec", "-C", dir, "-e", script])
  expect(result).toEqual({ code: 0, stdout: "bye\n", stderr: "" })
  expect(Date.now() - started).toBeLessThan(10_000)
  expect(Number(await readFile(join(dir, "left.pid"), "utf8"))).toBeGreaterThan(0)
  expect(findProcess(["sleep", seconds])).toBeUndefined()
})

describe("errors that escape the script end it, with the message and line", () => {
  test("an unhandled rejection", async () => {
    const started = Date.now()
    const result = await clanka(["exec", "-C", dir, "-e", `console.log("a")\nPromise.reject(new Error("unh"))\nawait sleep(5000)`])
    expect(Date.now() - started).toBeLessThan(4000)
    expect(result).toEqual({
      code: 1,
      stdout: "a\n",
      stderr: "clanka: the script failed: Uncaught (in promise) Error: unh (line 2)\n",
    })
  })

  test("a value that is not an error, rejected or thrown from a timer, says Uncaught once", async () => {
    const rejected = await clanka(["exec", "-C", dir, "-e", `Promise.reject(42)\nawait sleep(2000)`])
    expect(rejected.stderr).toBe("clanka: the script failed: Uncaught (in promise) 42\n")
    const thrown = await clanka(["exec", "-C", dir, "-e", `setTimeout(() => { throw "str" })\nawait sleep(2000)`])
    expect(thrown.stderr).toBe("clanka: the script failed: Uncaught str\n")
  })

  test("a rejection no one handles, in a script that ends at once", async () => {
    const result = await clanka(["exec", "-C", dir, "-e", `Promise.reject(new Error("unh"))\nconsole.log("a")`])
    expect(result).toEqual({ code: 1, stdout: "a\n", stderr: "clanka: the script failed: Uncaught (in promise) Error: unh (line 1)\n" })
    const later = await clanka(["exec", "-C", dir, "-e", `;[1, 2].forEach(async (n) => { await null; if (n === 2) throw new Error("in forEach") })\nconsole.log("b")`])
    expect(later).toEqual({ code: 1, stdout: "b\n", stderr: "clanka: the script failed: Uncaught (in promise) Error: in forEach (line 1)\n" })
  })

  test("an error thrown from a timer", async () => {
    const result = await clanka(["exec", "-C", dir, "-e", `setTimeout(() => { throw new Error("async boom") }, 1)\nawait sleep(5000)`])
    expect(result.code).toBe(1)
    expect(result.stderr).toBe("clanka: the script failed: Uncaught Error: async boom (line 1)\n")
  })

  test("an un-awaited tool call that fails names the tool", async () => {
    const result = await clanka(["exec", "-C", dir, "-e", `bash({ command: "exit 3" })\nawait sleep(5000)`])
    expect(result.code).toBe(1)
    expect(result.stderr).toStartWith("clanka: the script failed: Uncaught (in promise) Error: bash: exit code 3")
    expect(result.stderr).toEndWith("(line 1)\n")
    expect(result.stderr.split("\n")).toHaveLength(2)
  })

  test("a tool call that fails while the script awaits something else is still the script's to catch", async () => {
    const script = `const call = bash({ command: "exit 3" })\nawait sleep(300)\ntry { await call } catch (e) { console.log("caught:", e.message) }`
    expect(await clanka(["exec", "-C", dir, "-e", script])).toEqual({ code: 0, stdout: "caught: bash: exit code 3 (no output)\n", stderr: "" })
  })

  test("a failed tool call nobody looks at ends the script after a second, or when the script ends", async () => {
    const started = Date.now()
    const waiting = await clanka(["exec", "-C", dir, "-e", `bash({ command: "exit 3" })\nawait sleep(5000)`])
    expect(Date.now() - started).toBeLessThan(4000)
    expect(waiting.stderr).toBe("clanka: the script failed: Uncaught (in promise) Error: bash: exit code 3 (no output) (line 1)\n")
    const ending = await clanka(["exec", "-C", dir, "-e", `bash({ command: "exit 3" })\nawait sleep(200)\nconsole.log("end")`])
    expect(ending).toMatchObject({ code: 1, stdout: "end\n", stderr: "clanka: the script failed: Uncaught (in promise) Error: bash: exit code 3 (no output) (line 1)\n" })
  })
})

test("the executor gets an allow-listed environment: no keys or tokens unless named with --env", async () => {
  const env = { ANTHROPIC_API_KEY: "sk-ant-secret", OPENAI_API_KEY: "sk-secret", EXA_API_KEY: "exa-secret", OTHER_TOKEN: "tok", GH_TOKEN: "gh", LC_ALL: "C.UTF-8" }
  const script = `console.log(await bash({ command: "env | grep -E 'API_KEY|TOKEN|LC_ALL' | sort" }))`
  for (const sandbox of ["off", "workspace-write"]) {
    const result = await clanka(["exec", "-C", dir, "--sandbox", sandbox, "-e", script], { env })
    expect(result).toEqual({ code: 0, stdout: "LC_ALL=C.UTF-8\n\n", stderr: "" })
    const named = await clanka(["exec", "-C", dir, "--sandbox", sandbox, "--env", "GH_TOKEN", "--env", "OTHER_TOKEN", "-e", script], { env })
    expect(named).toEqual({ code: 0, stdout: "GH_TOKEN=gh\nLC_ALL=C.UTF-8\nOTHER_TOKEN=tok\n\n", stderr: "" })
  }
  expect((await clanka(["exec", "--env", "A=1", "-e", "1"])).stderr).toBe('clanka: --env takes a variable name such as GH_TOKEN, got "A=1"\n')
})

test("a script that eats memory is stopped at the executor's memory limit", async () => {
  const script = `console.log("start"); const kept = []; while (true) kept.push("x".repeat(1e6) + Math.random())`
  const result = await clanka(["exec", "-C", dir, "-e", script], { env: { CLANKA_SCRIPT_MEMORY_MB: "400" } })
  expect(result).toEqual({
    code: 1,
    stdout: "start\n",
    stderr: "clanka: the script failed: script stopped: the executor's memory passed 400 MiB (CLANKA_SCRIPT_MEMORY_MB)\n",
  })
})

test("exec --json: a script that throws a lone surrogate still gets a line strict parsers read (U+FFFD)", async () => {
  const result = await clanka(["exec", "-C", dir, "--json", "-e", 'console.log("ok")\nthrow new Error("bad \\ud800 x\\u2028y")'])
  expect(result.code).toBe(1)
  expect(result.stdout).not.toMatch(/(?<!\\)(\\\\)*\\ud[89a-f]/)
  expect(result.stdout).not.toMatch(/[\u2028]/)
  expect(JSON.parse(result.stdout)).toMatchObject({ exitCode: 1, output: "ok\n", error: expect.stringContaining("bad \ufffd x") })
})

test("hosts() outside a run with several hosts says so, not that a service is missing", async () => {
  const result = await clanka(["exec", "-C", dir, "-e", "console.log(await hosts())"])
  expect(result.code).toBe(1)
  expect(result.stderr).toBe("clanka: the script failed: Error: hosts: it lists the hosts of a `clanka run` with several --ssh hosts; there are none here (line 1)\n")
})
