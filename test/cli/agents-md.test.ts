// AGENTS.md goes to the model, so a cloned repository's `AGENTS.md -> /etc/passwd` (or a key file)
// must not: only a file really inside the workspace is read; a symlink out is left out, with one line.
import { afterEach, expect, test } from "bun:test"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { startFakeModel, type FakeServer } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

const base = temporaryDirectory("clanka-agents-md-")
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function firstRequestOf(workspace: string): Promise<{ system: string; stderr: string; code: number }> {
  server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script: 'await taskComplete("done")' }] }])
  const result = await clanka(["run", "-C", workspace, "-m", "anthropic/claude-sonnet-4-5", "hello"], { env: server.env })
  return { system: server.requests[0]!.system, stderr: result.stderr, code: result.code }
}

test("an AGENTS.md symlink to a file outside the workspace is not sent to the model, and the user is told once", async () => {
  const secret = join(base, "secret.txt")
  writeFileSync(secret, "PRIVATE-KEY-MATERIAL-7731\n")
  const workspace = join(base, "cloned")
  mkdirSync(workspace)
  symlinkSync(secret, join(workspace, "AGENTS.md"))
  const { system, stderr, code } = await firstRequestOf(workspace)
  expect(code).toBe(0)
  expect(system).not.toContain("PRIVATE-KEY-MATERIAL-7731")
  expect(stderr.split("\n").filter((line) => line.includes("AGENTS.md"))).toEqual([
    `clanka: AGENTS.md is a symlink to ${secret}, outside the workspace; not read`,
  ])
})

test("an AGENTS.md symlink to a file inside the workspace still works", async () => {
  const workspace = join(base, "own")
  mkdirSync(join(workspace, "docs"), { recursive: true })
  writeFileSync(join(workspace, "docs/agents.md"), "Use tabs, always-4412.\n")
  symlinkSync("docs/agents.md", join(workspace, "AGENTS.md"))
  const { system, stderr, code } = await firstRequestOf(workspace)
  expect(code).toBe(0)
  expect(system).toContain("Use tabs, always-4412.")
  expect(stderr).not.toContain("AGENTS.md")
})
