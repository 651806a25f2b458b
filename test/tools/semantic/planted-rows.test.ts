// The index database is a file the workspace's scripts can write: rows they add naming paths
// outside the workspace must not make a search read, show or embed those files.
import { expect, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pick, render } from "../../../src/tools/semantic/query.ts"
import { IndexStore } from "../../../src/tools/semantic/store.ts"
import { temporaryDirectory } from "../../support/temp.ts"

test("rows naming paths outside the workspace are never shown", () => {
  const root = temporaryDirectory("clanka-planted-")
  const workspace = join(root, "work")
  mkdirSync(workspace)
  writeFileSync(join(root, "secret.txt"), "the secret password is hunter2\n")
  writeFileSync(join(workspace, "notes.md"), "secret words\n")
  const store = new IndexStore(undefined)
  const chunk = { start: 1, end: 1, symbols: [], pathWords: "secret", symbolWords: "", bodyWords: "secret password" }
  for (const path of ["../secret.txt", join(root, "secret.txt"), "a/../../secret.txt", "notes.md"]) store.putFile(path, { mtime: 0, size: 1 }, [chunk])
  const ids = store.match('"secret"', 10).map((row) => row.id)
  expect(ids).toHaveLength(4)
  const shown = render(workspace, pick(store, ids, 10, () => true))
  expect(shown).toBe("notes.md:1-1\nsecret words")
  store.close()
})
