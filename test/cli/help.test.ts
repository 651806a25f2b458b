import { expect, test } from "bun:test"
import { BUN, clanka, MAIN, ROOT } from "../support/cli.ts"

test("clanka help prints what clanka --help prints, exit 0", async () => {
  const help = await clanka(["help"])
  expect(help).toEqual(await clanka(["--help"]))
  expect(help.code).toBe(0)
  expect(help.stderr).toBe("")
  expect(help.stdout).toContain("\n  help        Print this help, or the help of COMMAND")
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
    "COLUMNS",
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
    stderr: 'clanka: unknown command "nope"; commands: run, exec, tool, tools, skills, executor, config, trust, mcp, sessions, summary, acp, batch, worker, help (clanka --help)\n',
  })
  expect(await clanka(["help", "run", "exec"])).toEqual({
    code: 2,
    stdout: "",
    stderr: 'clanka: unexpected argument "exec" (see clanka help --help)\n',
  })
})

/** What clanka prints on a pseudo-terminal of `cols` columns (stdout is then that terminal). */
async function onTerminal(args: string[], cols: number): Promise<string> {
  let screen = ""
  const decoder = new TextDecoder()
  const child = Bun.spawn([BUN, MAIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", COLUMNS: undefined },
    terminal: { cols, rows: 50, data: (_terminal, data) => void (screen += decoder.decode(data, { stream: true })) },
  })
  expect(await child.exited).toBe(0)
  // The last output may arrive just after the exit.
  await Bun.sleep(100)
  child.terminal!.close()
  return screen.replace(/\r/g, "")
}

/** The rows of one section (from its title to the next title), without the blank line after the title. */
function section(help: string, title: string): string[] {
  const lines = help.split("\n")
  const start = lines.findIndex((line) => line.startsWith(title))
  expect(start).toBeGreaterThan(-1)
  const end = lines.findIndex((line, index) => index > start && /^[A-Z]/.test(line))
  return lines.slice(start + 2, end === -1 ? undefined : end).filter((line, index, all) => index < all.length - 1 || line !== "")
}

/** Each flag of an OPTIONS section with its description, continuation lines joined. */
function flagEntries(rows: string[]): Array<{ flag: string; text: string }> {
  const entries: Array<{ flag: string; text: string }> = []
  for (const row of rows) {
    const flag = row.match(/^ {2}(?:-\w, )? *(--[\w-]+)/)
    if (flag) entries.push({ flag: flag[1]!, text: row })
    else entries.at(-1)!.text += " " + row.trim()
  }
  return entries
}

for (const cols of [60, 80, 120]) {
  test(`clanka help run on a ${cols}-column terminal: every line fits, rows wrap under their column, one default per flag`, async () => {
    const help = await onTerminal(["help", "run"], cols)
    expect(help).toEqual(await onTerminal(["run", "--help"], cols))
    const lines = help.split("\n")
    expect(lines.filter((line) => line.length > cols)).toEqual([])
    const options = section(help, "OPTIONS")
    // One row after the other: no blank line between them, no row cut mid-word onto a line of its own.
    expect(options.length).toBeGreaterThan(30)
    expect(options.filter((line) => line.trim() === "")).toEqual([])
    const column = options[0]!.indexOf("provider/model")
    expect(column).toBeGreaterThan(10)
    for (const line of options) {
      if (!/^ {2}(-\w, | {4})--/.test(line)) expect(line.slice(0, column).trim()).toBe("")
    }
    const entries = flagEntries(options)
    expect(entries.map((entry) => entry.flag)).toContain("--no-upload")
    for (const entry of entries) {
      expect(entry.text).not.toContain("(Default:")
      expect(entry.text.match(/default/gi)?.length ?? 0).toBeLessThanOrEqual(1)
    }
    expect(entries.find((entry) => entry.flag === "--upload")!.text).toContain("(the default)")
    expect(entries.find((entry) => entry.flag === "--no-upload")!.text).not.toContain("default")
    expect(entries.find((entry) => entry.flag === "--session")!.text).toEndWith("save this run as a session (the default)")
    // The conversation keys and the exit codes.
    const keys = section(help, "CONVERSATION").join("\n")
    for (const key of ["/help", "/compact", "/exit", "Ctrl-C", "Ctrl-D"]) expect(keys).toContain(`  ${key}`)
    const codes = section(help, "EXIT CODES").filter((line) => /^ {2}\d+ /.test(line))
    expect(codes.map((line) => line.trim().split(/\s+/)[0])).toEqual(["0", "1", "2", "3", "130"])
  })
}

test("help fits 80 columns when stdout is not a terminal, and on a terminal of 120 uses the width", async () => {
  for (const args of [["--help"], ["help", "run"], ["help", "exec"], ["help", "sessions"]]) {
    const { stdout, code } = await clanka(args, { env: { COLUMNS: undefined } })
    expect(code).toBe(0)
    expect(stdout.split("\n").filter((line) => line.length > 80)).toEqual([])
  }
  const wide = await onTerminal(["help"], 120)
  expect(wide.split("\n").filter((line) => line.length > 120)).toEqual([])
  expect(wide.split("\n").some((line) => line.length > 80)).toBe(true)
})

test("COLUMNS sets the width, in a pipe as on a terminal; a value that is not a width is ignored", async () => {
  const narrow = await clanka(["help", "run"], { env: { COLUMNS: "60" } })
  expect(narrow.code).toBe(0)
  const lines = narrow.stdout.split("\n")
  expect(lines.filter((line) => line.length > 60)).toEqual([])
  expect(lines.some((line) => line.length > 50)).toBe(true)
  const wide = await clanka(["help"], { env: { COLUMNS: "120" } })
  expect(wide.stdout.split("\n").some((line) => line.length > 80)).toBe(true)
  for (const bad of ["0", "-5", "wide", ""]) {
    const { stdout } = await clanka(["help", "run"], { env: { COLUMNS: bad } })
    expect(stdout).toBe((await clanka(["help", "run"], { env: { COLUMNS: undefined } })).stdout)
  }
})
