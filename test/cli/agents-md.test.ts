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

// The agent reads the chain on the host, outside the sandbox, to start its first request early.
// With a home directory that is a git repository (dotfiles), a project under it is inside that
// repository, and so is ~/.ssh: a cloned project's AGENTS.md -> ../.ssh/id_ed25519 was read there
// and sent to the model, though the sandbox hides the key from every script.
test("an AGENTS.md symlink into a credential store the sandbox hides is not sent, also when the home is a repository", async () => {
  const home = join(base, "home-repo")
  mkdirSync(join(home, ".git"), { recursive: true })
  mkdirSync(join(home, ".ssh"))
  mkdirSync(join(home, "project"))
  writeFileSync(join(home, ".ssh/id_ed25519"), "SSH-KEY-MATERIAL-5521\n")
  symlinkSync("../.ssh/id_ed25519", join(home, "project/AGENTS.md"))
  writeFileSync(join(home, ".npmrc"), "//registry.npmjs.org/:_authToken=NPM-TOKEN-8812\n")
  symlinkSync(".npmrc", join(home, "CLAUDE.md"))
  server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script: 'await taskComplete("done")' }] }])
  const result = await clanka(["run", "-C", join(home, "project"), "-m", "anthropic/claude-sonnet-4-5", "hello"], {
    env: { ...server.env, HOME: home, XDG_CONFIG_HOME: undefined, XDG_STATE_HOME: undefined, CLANKA_HOME: undefined },
  })
  expect(result.code).toBe(0)
  const system = server.requests[0]!.system
  expect(system).not.toContain("SSH-KEY-MATERIAL-5521")
  expect(system).not.toContain("NPM-TOKEN-8812")
  // The executor's own reading warns (in its sandbox ~/.ssh is gone, ~/.npmrc is an empty file).
  expect(result.stderr.split("\n").filter((line) => line.includes("CLAUDE.md"))).toEqual([
    `clanka: ../CLAUDE.md is a symlink to ${join(home, ".npmrc")}, a credential store the sandbox hides; not read`,
  ])
})
