// A script that calls taskComplete without awaiting it ends at once, maybe before the executor has
// loaded its tools' modules (they load while the first script's worker starts): the summary must
// still reach the agent, or the run goes on as if the task were not done.
import { expect, test } from "bun:test"
import { LocalExecutor } from "../../src/executor/local.ts"
import { temporaryDirectory } from "../support/temp.ts"

const dir = temporaryDirectory("clanka-task-complete-")

test("an un-awaited taskComplete in a fresh executor's first script reaches the agent", async () => {
  for (let i = 0; i < 3; i++) {
    const executor = new LocalExecutor({ directory: dir })
    const summaries: string[] = []
    try {
      for await (const _ of executor.execute({ script: 'taskComplete("done")', onTaskComplete: (summary) => summaries.push(summary), onSubagent: async () => "" })) {
      }
    } finally {
      await executor.close()
    }
    expect(summaries).toEqual(["done"])
  }
})
