// Flags that did nothing without a word: a withheld key named with --env, a --writable directory
// that does not exist, a second --ssh host where the help promised it was repeatable.
import { describe, expect, test, setDefaultTimeout } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

setDefaultTimeout(60_000)

const dir = temporaryDirectory("clanka-flag-mistakes-")
const xdg = join(dir, ".xdg")
mkdirSync(xdg)
const base = { XDG_CONFIG_HOME: xdg, CLANKA_TRUST_PROJECT: undefined }

describe("--env with a key the agent keeps to itself", () => {
  test("is said in one line; the script's commands still do not get it, the other names pass", async () => {
    const env = { ...base, OPENAI_API_KEY: "sk-withheld", EXA_API_KEY: "exa-withheld", GH_TOKEN: "gh" }
    const script = `console.log(await bash({ command: "env | grep -E 'API_KEY|GH_TOKEN' | sort" }))`
    const result = await clanka(["exec", "-C", dir, "--sandbox", "off", "--env", "OPENAI_API_KEY", "--env", "GH_TOKEN", "--env", "EXA_API_KEY", "-e", script], { env })
    expect(result).toEqual({
      code: 0,
      stdout: "GH_TOKEN=gh\n\n",
      stderr: "clanka: --env OPENAI_API_KEY, EXA_API_KEY are not passed: clanka keeps its model and search keys (ANTHROPIC_API_KEY, OPENAI_API_KEY, EXA_API_KEY) from scripts and the commands they run\n",
    })
  })

  test("named in a trusted clanka.json, the line names the file", async () => {
    const project = join(dir, "project")
    mkdirSync(project, { recursive: true })
    writeFileSync(join(project, "clanka.json"), JSON.stringify({ env: ["ANTHROPIC_API_KEY"] }))
    const result = await clanka(["exec", "-C", project, "--sandbox", "off", "-e", "1"], { env: { ...base, CLANKA_TRUST_PROJECT: "1", ANTHROPIC_API_KEY: "sk-ant" } })
    expect(result).toEqual({
      code: 0,
      stdout: "",
      stderr: `clanka: ${join(project, "clanka.json")}: env: ANTHROPIC_API_KEY is not passed: clanka keeps its model and search keys (ANTHROPIC_API_KEY, OPENAI_API_KEY, EXA_API_KEY) from scripts and the commands they run\n`,
    })
  })
})

describe("--writable DIR that does not exist", () => {
  const missing = join(dir, "no-such-dir")
  test("is exit 2 in one line, for every command that starts an executor", async () => {
    const line = `clanka: --writable ${missing} does not exist; create it first, or leave it out\n`
    for (const command of [["exec", "-e", "1"], ["tool", "ls", "."], ["executor"]]) {
      const result = await clanka([...command, "-C", dir, "--writable", missing], { env: base, stdin: "" })
      expect({ command: command[0], ...result }).toEqual({ command: command[0], code: 2, stdout: "", stderr: line })
    }
  })

  test("in a trusted clanka.json, the line names the file", async () => {
    const project = join(dir, "writable-project")
    mkdirSync(project, { recursive: true })
    writeFileSync(join(project, "clanka.json"), JSON.stringify({ writable: ["cache"] }))
    const result = await clanka(["exec", "-C", project, "-e", "1"], { env: { ...base, CLANKA_TRUST_PROJECT: "1" } })
    expect(result).toEqual({ code: 2, stdout: "", stderr: `clanka: ${join(project, "clanka.json")}: writable: ${join(project, "cache")} does not exist; create it first, or leave it out\n` })
  })
})

describe("tool, tools, skills and mcp take one --ssh host", () => {
  test("their help says one host, not repeatable; a second host is exit 2", async () => {
    for (const command of ["tool", "tools", "skills", "mcp"]) {
      const help = await clanka([command, "--help"], { env: base })
      const text = help.stdout.replace(/\s+/g, " ")
      expect({ command, text }).toEqual({ command, text: expect.stringContaining("through the system ssh (one host)") })
      expect(text).not.toContain("repeatable (exec")
      const args = command === "tool" ? ["tool", "ls", "."] : [command]
      const twice = await clanka([...args, "--ssh", "a.invalid", "--ssh", "b.invalid"], { env: base })
      expect({ command, ...twice }).toEqual({ command, code: 2, stdout: "", stderr: "clanka: several --ssh hosts work with clanka run and clanka exec; give this command one\n" })
    }
    // exec and run still take several.
    expect((await clanka(["exec", "--help"], { env: base })).stdout).toContain("repeatable (exec: on every host")
  })
})
