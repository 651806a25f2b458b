import { afterEach, describe, expect, test } from "bun:test"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { startFakeModel, type FakeServer } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

const dir = temporaryDirectory("clanka-args-")
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const usage = (line: string) => ({ code: 2, stdout: "", stderr: `clanka: ${line}\n` })

async function finishing(): Promise<Record<string, string>> {
  server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script: `await taskComplete("done")` }] }])
  return { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5" }
}

describe("positional words", () => {
  test("run joins all its words into the prompt", async () => {
    const env = await finishing()
    const result = await clanka(["run", "--json", "-C", dir, "fix", "the", "bug"], { env })
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout.split("\n")[0]!)).toMatchObject({ _tag: "AgentStart", prompt: "fix the bug" })
  })

  test("run - alone still reads the prompt from stdin", async () => {
    const env = await finishing()
    const result = await clanka(["run", "--json", "-C", dir, "-"], { env, stdin: "from stdin\n" })
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout.split("\n")[0]!)).toMatchObject({ prompt: "from stdin" })
  })

  test("run - with more words is refused: the words would be the prompt and stdin dropped", async () => {
    const env = await finishing()
    const result = await clanka(["run", "--json", "-C", dir, "-", "review", "this"], { env, stdin: "the diff\n" })
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(`clanka: "-" reads the whole prompt from stdin; give no other words with it (put "review this" into stdin too)\n`)
    expect(server!.requests).toHaveLength(0)
  })

  test("other commands reject a word they do not take, naming it", async () => {
    expect(await clanka(["exec", "-C", dir, "a.js", "b.js"])).toEqual(usage(`unexpected argument "b.js" (see clanka exec --help)`))
    expect(await clanka(["exec", "a.js", "--", "b.js"])).toEqual(usage(`unexpected argument "b.js" (see clanka exec --help)`))
    expect(await clanka(["tool", "-C", dir, "ls", ".", "extra"])).toEqual(usage(`unexpected argument "extra" (see clanka tool --help)`))
    expect(await clanka(["tools", "all"])).toEqual(usage(`unexpected argument "all" (see clanka tools --help)`))
    expect(await clanka(["executor", "-C", dir, "now"])).toEqual(usage(`unexpected argument "now" (see clanka executor --help)`))
  })
})

describe("flag values", () => {
  test("a flag at the end, or followed by another flag, needs a value", async () => {
    expect(await clanka(["run", "--model"])).toEqual(usage("--model needs a value (see clanka run --help)"))
    expect(await clanka(["exec", "--ssh", "-e", "console.log(1)"])).toEqual(usage("--ssh needs a value (see clanka exec --help)"))
    expect(await clanka(["exec", "-e"])).toEqual(usage("-e needs a value (see clanka exec --help)"))
    expect(await clanka(["exec", "-C", "--timeout", "1", "-e", "1"])).toEqual(usage("-C needs a value (see clanka exec --help)"))
  })

  test("a flag given twice is refused", async () => {
    expect(await clanka(["exec", "-e", "console.log(1)", "-e", "console.log(2)"])).toEqual(usage("-e was given twice; give it once"))
    expect(await clanka(["exec", "--eval=1", "-e", "2"])).toEqual(usage("-e was given twice; give it once"))
  })

  test("values that start with - but are not flags, and the attached forms, still work", async () => {
    const ok = (stdout: string) => ({ code: 0, stdout, stderr: "" })
    expect(await clanka(["exec", "-C", dir, "-e", "-(1); console.log(3)"])).toEqual(ok("3\n"))
    expect(await clanka(["exec", "-C", dir, "--eval=console.log(4)"])).toEqual(ok("4\n"))
    expect(await clanka(["exec", `-C${dir}`, "-econsole.log(5)"])).toEqual(ok("5\n"))
    const env = await finishing()
    const result = await clanka(["run", "--json", "-C", dir, "--system", "-be terse", "go"], { env })
    expect(result.code).toBe(0)
    expect(JSON.stringify(server!.requests[0]!.body)).toContain("-be terse")
  })
})

describe("help and version", () => {
  // citty colours its help unless NO_COLOR=1, CI or TEST is set: unset them all.
  const colourful = { NO_COLOR: undefined, CI: undefined, TEST: undefined, TERM: "xterm-256color" }

  test("help has no colour codes when stdout is not a terminal", async () => {
    for (const args of [["--help"], ["exec", "--help"]]) {
      const result = await clanka(args, { env: colourful })
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("USAGE")
      expect(result.stdout).not.toContain("\x1b[")
    }
  })

  test("--version and --help together print the help; --version alone the version", async () => {
    for (const args of [["--version", "--help"], ["--help", "--version"], ["-v", "-h"]]) {
      const result = await clanka(args)
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("USAGE")
    }
    expect((await clanka(["--version", "--version"])).stdout).toStartWith("clanka ")
    expect(await clanka(["--verbose"])).toEqual(usage(`unknown option "--verbose" (see clanka --help)`))
  })
})

describe("typos", () => {
  test("a mistyped flag is named with the flag meant and the command's own help", async () => {
    expect(await clanka(["run", "--modle", "x", "hi"])).toEqual(usage(`unknown option "--modle"; did you mean --model? (see clanka run --help)`))
    expect(await clanka(["exec", "--tiemout=3", "-e", "1"])).toEqual(usage(`unknown option "--tiemout=3"; did you mean --timeout? (see clanka exec --help)`))
    expect(await clanka(["sessions", "--al"])).toEqual(usage(`unknown option "--al"; did you mean --all? (see clanka sessions --help)`))
    // Nothing close: no guess, still the command's help.
    expect(await clanka(["run", "--frobnicate", "hi"])).toEqual(usage(`unknown option "--frobnicate" (see clanka run --help)`))
    expect(await clanka(["run", "-x", "hi"])).toEqual(usage(`unknown option "-x" (see clanka run --help)`))
  })

  test("clanka --help COMMAND is the command's help; --version is not taken for a command's flag", async () => {
    const help = await clanka(["help", "run"])
    expect(await clanka(["--help", "run"])).toEqual(help)
    expect(await clanka(["-h", "run"])).toEqual(help)
    expect(await clanka(["--version", "run"])).toEqual(usage("--version takes no command: clanka --version"))
    expect(await clanka(["run", "--version"])).toEqual(usage("--version goes before the command: clanka --version"))
    expect(await clanka(["version"])).toEqual(usage(`unknown command "version"; clanka --version prints the version`))
    expect(await clanka(["--help", "nope"])).toEqual(usage(`unknown command "nope" (see clanka --help)`))
  })

  test("a mistyped command is named with the command meant", async () => {
    expect(await clanka(["exce", "-e", "1"])).toEqual(usage(`unknown command "exce"; did you mean exec? (clanka --help lists the commands)`))
    expect(await clanka(["help", "sesions"])).toEqual(usage(`unknown command "sesions"; did you mean sessions? (clanka --help lists the commands)`))
  })
})

describe("-C DIR", () => {
  test("a missing directory or a file is exit 2 with one line, before anything runs", async () => {
    const missing = join(dir, "nope")
    expect(await clanka(["exec", "-C", missing, "-e", "console.log(1)"])).toEqual(usage(`-C ${missing}: no such directory`))
    expect(await clanka(["tool", "-C", missing, "ls", "."])).toEqual(usage(`-C ${missing}: no such directory`))
    const file = join(dir, "file.txt")
    await Bun.write(file, "x")
    expect(await clanka(["exec", "-C", file, "-e", "console.log(1)"])).toEqual(usage(`-C ${file}: not a directory`))
  })

  test("config, skills and tools, which start no executor, check -C the same way", async () => {
    const missing = join(dir, "nope")
    for (const command of ["config", "skills", "tools"]) {
      expect({ command, ...(await clanka([command, "-C", missing])) }).toEqual({ command, ...usage(`-C ${missing}: no such directory`) })
    }
    const file = join(dir, "file.txt")
    await Bun.write(file, "x")
    expect(await clanka(["config", "-C", file])).toEqual(usage(`-C ${file}: not a directory`))
  })

  test("clanka run --json -C missing: no model call, AgentError last, exit 2", async () => {
    const env = await finishing()
    const missing = join(dir, "nope")
    const result = await clanka(["run", "--json", "-C", missing, "x"], { env })
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(`clanka: -C ${missing}: no such directory\n`)
    expect(JSON.parse(result.stdout)).toEqual({ _tag: "AgentError", message: `-C ${missing}: no such directory`, exitCode: 2 })
    expect(server!.requests).toHaveLength(0)
  })

  test("with --executor, -C is refused: it belongs in the executor command", async () => {
    expect(await clanka(["exec", "-C", dir, "--executor", "clanka executor", "-e", "1"])).toEqual(
      usage(`-C does not apply to --executor: put it in the executor command, e.g. --executor "clanka executor -C ${dir}"`),
    )
  })
})

describe("CLANKA_DEBUG", () => {
  const cases: [string, string[], number, string][] = [
    ["a failing tool", ["tool", "-C", "DIR", "ls", '"missing-dir"'], 1, "clanka: ls: missing-dir does not exist"],
    [
      "a bad model spec",
      ["run", "-m", "acme/x", "-C", "DIR", "hi"],
      2,
      'clanka: unknown model provider "acme": use one of anthropic, openai, openai-compatible (as in provider/model[:effort], e.g. anthropic/claude-sonnet-4-5 or openai/gpt-5.2:high)',
    ],
  ]
  test.each(cases)("%s: one line without it; with CLANKA_DEBUG=1 the stack trace follows", async (_, raw, code, line) => {
    const args = raw.map((arg) => (arg === "DIR" ? dir : arg))
    const plain = await clanka(args, { env: { CLANKA_DEBUG: undefined } })
    expect(plain).toEqual({ code, stdout: "", stderr: `${line}\n` })

    const debug = await clanka(args, { env: { CLANKA_DEBUG: "1" } })
    expect(debug.code).toBe(code)
    const lines = debug.stderr.trimEnd().split("\n")
    expect(lines[0]).toBe(line)
    expect(lines.length).toBeGreaterThan(2)
    expect(lines.filter((l) => l.startsWith("    at ")).length).toBeGreaterThan(0)
  })
})

test("a missing required argument is exit 2 with one line", async () => {
  expect(await clanka(["tool"])).toEqual({ code: 2, stdout: "", stderr: "clanka: missing NAME (see clanka tool --help)\n" })
})

test("clanka run --json ends with an AgentError line for usage errors too", async () => {
  const result = await clanka(["run", "--json", "--bogus", "hi"])
  expect(result.code).toBe(2)
  expect(result.stdout).toBe(`{"_tag":"AgentError","message":"unknown option \\"--bogus\\" (see clanka run --help)","exitCode":2}\n`)
  expect(result.stderr).toBe('clanka: unknown option "--bogus" (see clanka run --help)\n')
})
