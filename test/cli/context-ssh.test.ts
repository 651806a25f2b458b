// Over --ssh the machine's facts, the AGENTS.md chain and the project's skills are the far side's
// (its executor gathers them); the user's AGENTS.md and skills come from this machine, and a user
// skill's files are copied to the far side, where scripts can run them.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { clanka } from "../support/cli.ts"
import { startFakeModel, type FakeServer } from "../support/fake-model.ts"
import { sshdAvailable, startSshProject, type SshProject } from "../support/sshd.ts"

const available = sshdAvailable()
let host: SshProject
let server: FakeServer | undefined
setDefaultTimeout(60_000)

function write(path: string, text: string, mode?: number): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
  if (mode !== undefined) chmodSync(path, mode)
}

beforeAll(async () => {
  if (!available) return
  host = await startSshProject("clanka-context-ssh-", {
    "AGENTS.md": "Remote rule.\n",
    ".agents/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy the far side.\n---\nRun deploy.sh.\n",
  })
  write(join(host.remoteDir, ".agents/skills/deploy/deploy.sh"), "#!/bin/sh\necho deployed on $(pwd)\n", 0o755)
  spawnSync("git", ["init", "-q", "-b", "far-side"], { cwd: host.remoteDir })
  // The local directory has instructions and a branch of its own, which must not show.
  write(join(host.local, "AGENTS.md"), "LOCAL-ONLY rule.\n")
  spawnSync("git", ["init", "-q", "-b", "near-side"], { cwd: host.local })
  write(join(host.local, "xdg/clanka/AGENTS.md"), "User rule.\n")
  write(join(host.local, "xdg/clanka/skills/notes/SKILL.md"), "---\nname: notes\ndescription: Keep notes.\n---\nSee template.md.\n")
  write(join(host.local, "xdg/clanka/skills/notes/template.md"), "# Notes template\n")
})

afterAll(async () => {
  await server?.close()
  if (available) await host.stop()
})

test.skipIf(!available)("clanka run --ssh: the far side's branch, AGENTS.md and skills; the user's own from here; both kinds of skill load there", async () => {
  const script = [
    'const deploy = await skill("deploy")',
    "console.log(deploy.body, await bash({ command: JSON.stringify(deploy.files[0]) }))",
    'const notes = await skill("notes")',
    "console.log(notes.body, await readFile({ path: notes.files[0] }))",
  ].join("\n")
  server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script }] }, { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] }])
  const result = await clanka(["run", "--json", "--ssh", host.target, "--remote-bin", host.remoteBin, "-m", "anthropic/claude-sonnet-4-5", "go"], {
    cwd: host.local,
    env: { ...host.env, ...server.env, XDG_CONFIG_HOME: join(host.local, "xdg"), CLANKA_NO_SESSION: "1" },
    timeoutMs: 30_000,
  })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const system = server.requests[0]!.system
  expect(system).toContain(`Working directory: ${host.remoteDir}\n\nEnvironment:\n`)
  expect(system).toMatch(/\n- Git repository, branch far-side, \d+ changed files?\n/)
  expect(system).not.toContain("near-side")
  expect(system).not.toContain("LOCAL-ONLY")
  expect(system).toContain("\n- deploy: Deploy the far side.\n- notes: Keep notes.\n")
  expect(system).toEndWith(`--- ${join(host.local, "xdg/clanka/AGENTS.md")} ---\nUser rule.\n\n--- ${host.remoteDir}/AGENTS.md ---\nRemote rule.`)
  const output = server.requests[1]!.toolResults[0]!
  expect(output).toStartWith("Run deploy.sh. ")
  expect(output).toContain(`deployed on ${host.remoteDir}\n`)
  expect(output).toEndWith("\nSee template.md. # Notes template\n\n")
})
