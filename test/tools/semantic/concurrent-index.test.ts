// Another clanka on the same workspace writes the shared index while a search is being answered:
// what the search ranked must still be there to show (one state of the index, not two).
import { afterAll, expect, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { closeIndexes, SearchIndex } from "../../../src/tools/semantic/index.ts"
import { searchIndexDir } from "../../../src/tools/semantic/location.ts"
import { runSearch } from "../../../src/tools/semantic/search.ts"
import { temporaryDirectory } from "../../support/temp.ts"

const workspace = temporaryDirectory("clanka-concurrent-index-")
afterAll(() => closeIndexes())

test("a search answered while another process re-indexes the file it found still shows that file", async () => {
  mkdirSync(join(workspace, "src"))
  writeFileSync(join(workspace, "src/retry.ts"), "export function retryWithBackoff(attempts: number) {\n  return attempts * 2\n}\n")
  // Indexed after it: the re-indexed file's chunk gets a new id, not its old one back.
  writeFileSync(join(workspace, "src/zeta.ts"), "export const zeta = 1\n")
  const other = new SearchIndex({ directory: workspace, dir: searchIndexDir(workspace) })
  try {
    await other.catchUp(10_000)
    const ctx = {
      directory: workspace,
      signal: new AbortController().signal,
      // While the agent is asked for the query's embedding, the other process rewrites the index
      // entry of retry.ts (its file changed); this agent has no embeddings.
      agentCall: async () => {
        writeFileSync(join(workspace, "src/retry.ts"), "export function retryWithBackoff(attempts: number) {\n  return attempts * 3\n}\n")
        await other.refresh(["src/retry.ts"])
        throw new Error('no agent-side service "embed"')
      },
    }
    const found = await runSearch("retry with backoff", {}, ctx as never)
    expect(found.split("\n")[0]).toBe("src/retry.ts:1-3")
  } finally {
    other.close()
  }
})
