// applyPatch and writeFile when the disk fills while it writes: the sandbox's /tmp bounded with --tmp-size.
import { afterAll, describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { BWRAP } from "../support/sandbox-backends.ts"

const root = mkdtempSync(join(tmpdir(), "clanka-disk-full-"))
const workspace = join(root, "app")
mkdirSync(workspace)
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe.skipIf(!BWRAP.available)("writes on a full disk (bwrap's bounded /tmp)", () => {
  test("nothing is changed and no part of a temp file is left taking the space", async () => {
    const script = `await writeFile({ path: "/tmp/a.txt", content: "a\\n" })
await writeFile({ path: "/tmp/b.txt", content: "b\\n" })
const patch = "*** Begin Patch\\n*** Update File: /tmp/a.txt\\n-a\\n+A\\n*** Update File: /tmp/b.txt\\n-b\\n+" + "x".repeat(2000000) + "\\n*** End Patch"
await applyPatch(patch).catch((error) => console.log(error.message))
console.log(JSON.stringify(await readFile({ path: "/tmp/a.txt" })), JSON.stringify((await ls("/tmp")).filter((name) => !name.endsWith("/"))))`
    const result = await clanka(["exec", "-C", workspace, "--tmp-size", "1M", "-e", script])
    expect(result.stderr).toBe("")
    expect(result.stdout).toBe(
      'applyPatch: could not write /tmp/b.txt: no space left on the device; no file was changed\n"a\\n" ["a.txt","b.txt"]\n',
    )
  })

  test("writeFile says the disk is full in one line and leaves the file as it was", async () => {
    const script = `await writeFile({ path: "/tmp/a.txt", content: "a\\n" })
await writeFile({ path: "/tmp/a.txt", content: "x".repeat(2000000) }).catch((error) => console.log(error.message))
console.log(JSON.stringify(await readFile({ path: "/tmp/a.txt" })), JSON.stringify((await ls("/tmp")).filter((name) => !name.endsWith("/"))))`
    const result = await clanka(["exec", "-C", workspace, "--tmp-size", "1M", "-e", script])
    expect(result.stderr).toBe("")
    expect(result.stdout).toBe('writeFile: cannot write /tmp/a.txt: no space left on the device; the file is unchanged\n"a\\n" ["a.txt"]\n')
  })
})
