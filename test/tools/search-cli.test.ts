// `clanka tool rg` and `clanka tool glob` as a user runs them: a real subprocess.
import { afterAll, expect, test } from "bun:test"
import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { hasRg, makeTree, needsRg, removeTree } from "./search-helpers.ts"

const main = path.join(import.meta.dir, "../../src/cli/main.ts")
const dir = makeTree({
  ".gitignore": "out/\n",
  "out/a.txt": "needle\n",
  "src/a.ts": "const needle = 1\n",
  "src/b.ts": "nothing\n",
})
// A stand-in `rg` first on PATH that notes each call, then runs the real one (when there is one).
const fakeBin = makeTree({})
const calls = path.join(fakeBin, "calls.log")
writeFileSync(path.join(fakeBin, "rg"), `#!/bin/sh\necho "$@" >> '${calls}'\nexec '${Bun.which("rg") ?? "false"}' "$@"\n`)
chmodSync(path.join(fakeBin, "rg"), 0o755)
const expected = `${JSON.stringify("src/a.ts\n1:const needle = 1")}\n`
afterAll(() => {
  removeTree(dir)
  removeTree(fakeBin)
})

async function clanka(args: string[], env: Record<string, string | undefined>) {
  const child = Bun.spawn([process.execPath, main, ...args], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { stdout, stderr, code }
}

test.skipIf(!hasRg)(needsRg("clanka tool rg with rg on PATH: rg answers, once"), async () => {
  // Off: the fake rg and the file it records to live outside the workspace.
  const withRg = await clanka(["tool", "rg", '{"pattern":"needle"}', "-C", dir, "--sandbox", "off"], {
    CLANKA_SEARCH_ENGINE: undefined,
    PATH: `${fakeBin}:${process.env.PATH}`,
  })
  expect(withRg).toEqual({ stdout: expected, stderr: "", code: 0 })
  // rg answered, once.
  expect(readFileSync(calls, "utf8")).toEndWith(" --regexp needle\n")
  expect(readFileSync(calls, "utf8").split("\n")).toHaveLength(2)
})

test("clanka tool rg without rg on PATH (a fresh remote host): the built-in search answers", async () => {
  const withoutRg = await clanka(["tool", "rg", '{"pattern":"needle"}', "-C", dir, "--sandbox", "off"], { CLANKA_SEARCH_ENGINE: undefined, PATH: "/nonexistent" })
  expect(withoutRg).toEqual({ stdout: expected, stderr: "", code: 0 })
})

test("clanka tool rg with a bad regex fails with the built-in search's regex error, exit 1", async () => {
  const result = await clanka(["tool", "rg", '{"pattern":"("}', "-C", dir], { CLANKA_SEARCH_ENGINE: "builtin" })
  expect(result).toEqual({ stdout: "", stderr: 'clanka: rg: invalid regex "(": missing )\n', code: 1 })
})

test.skipIf(!hasRg)(needsRg("clanka tool rg with a bad regex fails with rg's regex error"), async () => {
  const result = await clanka(["tool", "rg", '{"pattern":"("}', "-C", dir], { CLANKA_SEARCH_ENGINE: "rg" })
  expect(result.code).not.toBe(0)
  expect(result.stdout).toBe("")
  expect(result.stderr).toContain('rg: invalid regex "(": unclosed group')
})

test("clanka tool glob", async () => {
  const result = await clanka(["tool", "glob", '"**/*.ts"', "-C", dir], {})
  expect(result).toEqual({ stdout: `${JSON.stringify(["src/a.ts", "src/b.ts"], null, 2)}\n`, stderr: "", code: 0 })
})
