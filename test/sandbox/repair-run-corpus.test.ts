// Broken scripts as models write them, run through the real sandbox: the repaired script must run
// and leave exactly the intended files and summary. Each entry is a directory of
// repair-run-corpus/:
//   script.js   the script as the model wrote it (it does not parse)
//   before/     the project before the run (optional)
//   after/      every file the run writes or changes, with its exact content
//   summary.md  the exact text passed to taskComplete (optional: without it, no taskComplete)
import { afterAll, describe, expect, test } from "bun:test"
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { LocalExecutor } from "../../src/executor/local.ts"
import { parses, repairScript } from "../../src/sandbox/repair.ts"
import { temporaryDirectory } from "../support/temp.ts"

const corpus = join(import.meta.dir, "repair-run-corpus")
const entries = readdirSync(corpus).sort()
const root = temporaryDirectory("clanka-repair-run-")
const executors: LocalExecutor[] = []
afterAll(() => Promise.all(executors.map((executor) => executor.close())))

/** Every file under `directory`, by path relative to it, with its content. */
function tree(directory: string): Record<string, string> {
  const files: Record<string, string> = {}
  if (!existsSync(directory)) return files
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    files[relative(directory, path)] = readFileSync(path, "utf8")
  }
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)))
}

async function run(directory: string, script: string): Promise<{ output: string; error?: string; summaries: string[] }> {
  const executor = new LocalExecutor({ directory })
  executors.push(executor)
  const summaries: string[] = []
  let output = ""
  try {
    for await (const text of executor.execute({
      script,
      onTaskComplete: (summary) => summaries.push(summary),
      onSubagent: async () => "",
    })) output += text
    return { output, summaries }
  } catch (error) {
    return { output, error: (error as Error).message, summaries }
  }
}

describe("repair run corpus", () => {
  test("has at least 40 broken scripts", () => {
    expect(entries.length).toBeGreaterThanOrEqual(40)
  })

  for (const name of entries) {
    test(name, async () => {
      const entry = join(corpus, name)
      const script = readFileSync(join(entry, "script.js"), "utf8")
      // The entry exercises the repair only if the script as written does not parse.
      expect(parses(script)).toBe(false)
      const directory = join(root, name)
      if (existsSync(join(entry, "before"))) cpSync(join(entry, "before"), directory, { recursive: true })
      const expectedFiles = { ...tree(join(entry, "before")), ...tree(join(entry, "after")) }
      const summaryFile = join(entry, "summary.md")
      const expectedSummaries = existsSync(summaryFile) ? [readFileSync(summaryFile, "utf8")] : []

      const result = await run(directory, script)
      expect({ error: result.error, output: result.output }).toEqual({ error: undefined, output: expect.any(String) })
      expect(tree(directory)).toEqual(Object.fromEntries(Object.entries(expectedFiles).sort(([a], [b]) => a.localeCompare(b))))
      expect(result.summaries).toEqual(expectedSummaries)
      const repaired = repairScript(script)
      expect(repairScript(repaired)).toBe(repaired)
    })
  }
})
