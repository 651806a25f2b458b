import { expect, test } from "bun:test"
import { clanka } from "../support/cli.ts"

test("clanka help prints what clanka --help prints, exit 0", async () => {
  const help = await clanka(["help"])
  expect(help).toEqual(await clanka(["--help"]))
  expect(help.code).toBe(0)
  expect(help.stderr).toBe("")
  expect(help.stdout).toContain("      help    Print this help, or the help of COMMAND")
})

test("clanka help COMMAND prints what clanka COMMAND --help prints", async () => {
  for (const command of ["run", "exec", "tool", "tools", "executor"]) {
    const help = await clanka(["help", command])
    expect(help).toEqual(await clanka([command, "--help"]))
    expect(help.code).toBe(0)
    expect(help.stdout).toContain(`USAGE clanka ${command}`)
  }
})

test("the top-level help lists --version, the environment variables and the exit codes", async () => {
  const { stdout } = await clanka(["--help"])
  const lines = stdout.split("\n")
  expect(lines).toContain("  -v, --version    print the version")
  const variables = [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CLANKA_MODEL",
    "EXA_API_KEY",
    "CLANKA_REMOTE_BIN",
    "CLANKA_PING_MS",
    "CLANKA_SCRIPT_MEMORY_MB",
    "CLANKA_SEARCH_ENGINE",
    "NO_COLOR",
    "CLANKA_DEBUG=1",
  ]
  for (const name of variables) expect(lines.some((line) => line.startsWith(`  ${name} `))).toBe(true)
  const codes = lines.slice(lines.indexOf("EXIT CODES")).filter((line) => /^ {2}\d+ /.test(line))
  expect(codes.map((line) => line.trim().split(/\s+/)[0])).toEqual(["0", "1", "2", "3", "130"])
})

test("clanka help with an unknown command, or more than one, is exit 2 with one line", async () => {
  expect(await clanka(["help", "nope"])).toEqual({
    code: 2,
    stdout: "",
    stderr: 'clanka: unknown command "nope"; commands: run, exec, tool, tools, skills, executor, config, trust, mcp, sessions, help (clanka --help)\n',
  })
  expect(await clanka(["help", "run", "exec"])).toEqual({
    code: 2,
    stdout: "",
    stderr: 'clanka: unexpected argument "exec" (see clanka help --help)\n',
  })
})
