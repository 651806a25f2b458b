import { afterAll, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildSystemPrompt } from "../../src/agent/system-prompt.ts"
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
