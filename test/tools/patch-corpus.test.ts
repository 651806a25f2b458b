import { expect, test } from "bun:test"
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { ToolError } from "../../src/errors.ts"
import { callTool } from "../../src/tools/registry.ts"
import type { ToolContext } from "../../src/tools/tool.ts"
import { toolContext } from "../support/tool-context.ts"

// Each directory of patch-corpus/ is one imperfect patch and what it must do (see its README).
const corpus = join(import.meta.dir, "patch-corpus")

/** Every file under `dir` (hidden ones too, so a stray temp file fails the test) with its bytes. */
function tree(dir: string): Record<string, string> {
  const files: Record<string, string> = {}
  if (!existsSync(dir)) return files
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name)
      if (entry.isDirectory()) walk(path)
      else files[relative(dir, path)] = readFileSync(path, "latin1")
    }
  }
  walk(dir)
  return files
}

function context(directory: string): ToolContext {
  return toolContext(directory)
}

const cases = readdirSync(corpus)
  .filter((name) => statSync(join(corpus, name)).isDirectory())
  .sort()

test("the corpus holds at least 30 cases", () => {
  expect(cases.length).toBeGreaterThanOrEqual(30)
})

for (const name of cases) {
  test(name, async () => {
    const dir = join(corpus, name)
    const work = mkdtempSync(join(tmpdir(), "clanka-patch-"))
    try {
      if (existsSync(join(dir, "before"))) cpSync(join(dir, "before"), work, { recursive: true })
      const patch = readFileSync(join(dir, "patch"), "utf8")
      const errorFile = join(dir, "error")
      if (existsSync(errorFile)) {
        const expected = readFileSync(errorFile, "utf8").replace(/\n$/, "")
        const error = await callTool("applyPatch", patch, context(work)).then(
          (result) => new Error(`expected a failure, got ${JSON.stringify(result)}`),
          (error: unknown) => error,
        )
        expect(error).toBeInstanceOf(ToolError)
        expect((error as Error).message).toBe(expected)
        expect(tree(work)).toEqual(tree(join(dir, "before")))
      } else {
        const result = await callTool("applyPatch", patch, context(work))
        expect(result).toBe(readFileSync(join(dir, "result"), "utf8").replace(/\n$/, ""))
        expect(tree(work)).toEqual(tree(join(dir, "after")))
      }
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  })
}
