import { afterAll, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EXECUTE_TOOL } from "../../src/contract.ts"
import { buildSystemPrompt, toolNamesFromDts } from "../../src/agent/system-prompt.ts"
import { LocalExecutor } from "../../src/executor/local.ts"

const directory = mkdtempSync(join(tmpdir(), "clanka-prompt-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

test("the system prompt's example output is exactly what its program prints with the real tools", async () => {
  const prompt = buildSystemPrompt({ toolsDts: "", agentsMd: null, directory })
  const match = /Example program:\n```js\n([\s\S]*?)\n```\n\nIts output:\n```\n([\s\S]*?)\n```/.exec(prompt)
  expect(match).not.toBeNull()
  const [, program, output] = match!
  // A repository the example could have run in.
  writeFileSync(join(directory, "package.json"), JSON.stringify({ name: "my-app", version: "1.0.0" }))
  mkdirSync(join(directory, "src"))
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `const line${i + 1} = ${i + 1}`).join("\n")
  writeFileSync(join(directory, "src/main.ts"), `${lines(11)}\n  // TODO: handle errors\nexport {}\n`)
  writeFileSync(join(directory, "src/util.ts"), `${lines(3)}\n// TODO: add tests\n`)
  const executor = new LocalExecutor({ directory })
  try {
    let printed = ""
    for await (const text of executor.execute({ script: program!, onTaskComplete() {}, onSubagent: async () => "" })) printed += text
    expect(printed).toBe(`${output}\n`)
  } finally {
    await executor.close()
  }
})

/** SPEC section 7: what the system prompt must tell the model. */
const CODE_MODE_RULES: [string, RegExp][] = [
  ["one tool", /you act through one tool, `execute`/i],
  ["print what you need", /print what you need to see/i],
  ["top-level await", /top-level await works/i],
  ["variables do not persist", /variables do not persist between executes/i],
  ["no require/import/process", /there is no require, import, process/i],
  ["prefer applyPatch", /prefer applyPatch for edits/i],
]
const ONLY_WHEN_DONE = /call taskComplete\(summary\)[^\n]*call it only when everything is done/i

async function realCapabilities() {
  const dir = mkdtempSync(join(tmpdir(), "clanka-prompt-caps-"))
  writeFileSync(join(dir, "AGENTS.md"), "Run `make lint` before you finish.\n")
  const executor = new LocalExecutor({ directory: dir })
  try {
    return await executor.capabilities()
  } finally {
    await executor.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

test("task mode: every code-mode rule, the declarations, declare const fetch, and AGENTS.md", async () => {
  const caps = await realCapabilities()
  const prompt = buildSystemPrompt(caps)
  for (const [, rule] of CODE_MODE_RULES) expect(prompt).toMatch(rule)
  expect(prompt).toMatch(ONLY_WHEN_DONE)
  expect(prompt).not.toContain("taskComplete is not needed")
  // Every declaration line as generated from the schemas, with its /** description */ line.
  expect(prompt).toContain(caps.toolsDts.trim())
  expect(prompt).toContain("/** Read a text file")
  expect(prompt).toContain("declare function readFile(options: { path: string; startLine?: number; endLine?: number }): Promise<string | null>")
  expect(prompt).toContain("declare function applyPatch(patch: string): Promise<string>")
  expect(prompt).toContain("declare function taskComplete(output: string): Promise<void>")
  expect(prompt).toMatch(/^declare const fetch: /m)
  expect(prompt).toContain(`--- ${caps.directory}/AGENTS.md ---\nRun \`make lint\` before you finish.`)
  expect(prompt).not.toContain("do not call delegate")
})

test("conversation mode: the same rules, but a text answer ends the turn instead of taskComplete", async () => {
  const prompt = buildSystemPrompt({ ...(await realCapabilities()), conversation: true })
  for (const [, rule] of CODE_MODE_RULES) expect(prompt).toMatch(rule)
  expect(prompt).toContain("answer the user in plain text when you are done with their request; taskComplete is not needed")
  expect(prompt).not.toMatch(ONLY_WHEN_DONE)
})

test("a sub-agent's prompt discourages delegating again", async () => {
  const prompt = buildSystemPrompt({ ...(await realCapabilities()), subagent: true })
  expect(prompt).toContain("do not call delegate")
  expect(prompt).toMatch(ONLY_WHEN_DONE)
})

test("the fixed part of a request (system prompt and tool schema, without instructions files, skills and prompt) stays within 6,500 characters", async () => {
  // In a repository, as most runs are: the environment section then has its longest form.
  const dir = mkdtempSync(join(tmpdir(), "clanka-prompt-fixed-"))
  spawnSync("git", ["init", "-q", "-b", "main"], { cwd: dir })
  writeFileSync(join(dir, "changed.txt"), "x\n")
  const executor = new LocalExecutor({ directory: dir, policy: { mode: "workspace-write", network: false, writable: [] } })
  try {
    const caps = await executor.capabilities()
    expect(caps.environment?.git?.branch).toBe("main")
    const fixed = buildSystemPrompt(caps) + JSON.stringify(EXECUTE_TOOL)
    expect(fixed).toContain("Working rules:")
    expect(fixed).toContain("\n- Git repository, branch main, 1 changed file\n")
    expect(fixed.length).toBeLessThanOrEqual(6_500)
    // And it is not kept small by leaving the declarations out.
    expect(fixed.length).toBeGreaterThan(caps.toolsDts.length)
  } finally {
    await executor.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test("the tool names read from the declarations: every declared function, in order, and mcp when MCP tools are declared", () => {
  const dts = "/** Reads. */\ndeclare function readFile(p: string): Promise<string>\ndeclare function taskComplete(summary: string): Promise<void>\n"
  expect(toolNamesFromDts(dts)).toEqual(["readFile", "taskComplete"])
  expect(toolNamesFromDts(`${dts}declare const mcp: {\n  git: { status(): Promise<unknown> }\n}\n`)).toEqual(["readFile", "taskComplete", "mcp"])
  expect(toolNamesFromDts("")).toEqual([])
})
