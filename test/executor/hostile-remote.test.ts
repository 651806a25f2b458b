// RemoteExecutor against a far side that lies (test/support/hostile-executor.ts).
import { expect, test } from "bun:test"
import { join } from "node:path"
import { RemoteExecutor } from "../../src/executor/remote.ts"
import { BUN } from "../support/cli.ts"

const HOSTILE = join(import.meta.dir, "../support/hostile-executor.ts")

function start(config: object): Promise<RemoteExecutor> {
  return RemoteExecutor.start({ argv: [BUN, HOSTILE], env: { ...process.env, HOSTILE: JSON.stringify(config) }, label: "hostile" })
}

test("a failed script's report is kept up to 1 MiB however much the far side sends", async () => {
  const chunk = "REPEAT:1048576:r"
  const remote = await start({ outputs: Array.from({ length: 8 }, () => ({ _tag: "Text", text: chunk, report: true })), result: { ok: false, error: "boom" } })
  let report = ""
  try {
    for await (const _ of remote.execute({ script: "1", onTaskComplete: () => {}, onSubagent: async () => "", onReport: (text) => (report = text) })) {
    }
  } catch {
    // the script failed, as the far side said
  } finally {
    await remote.close()
  }
  expect(report.length).toBeGreaterThan(1024 * 1024 - 1)
  expect(report.length).toBeLessThan(1024 * 1024 + 200)
  expect(report.endsWith("[the rest of the report was left out: it is longer than 1 MiB]\n")).toBe(true)
})
