// A user skill linked from the project (the user writes it there): a script can swap the skill's
// folder itself, a link that points at the real folder one moment and at ~/.ssh the next. The
// agent answering skill(name) on the host listed the files in the one and checked them against
// the other: a file named like the key (id_ed25519) was then read from ~/.ssh and copied into the
// sandbox, though the sandbox hides ~/.ssh. Only the folder that was listed may give files.
import { afterAll, expect, test } from "bun:test"
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { osSandboxWorks } from "../../src/executor/os-sandbox.ts"
import { clanka } from "../support/cli.ts"
import { startFakeModel } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

const sandboxed = osSandboxWorks()
if (!sandboxed && process.env.CI) throw new Error("bwrap is missing or cannot create namespaces; .ci/run installs bubblewrap")

const base = realpathSync(temporaryDirectory("clanka-skill-swap-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))

test.skipIf(!sandboxed)("attack: a user skill's folder swapped for a link to ~/.ssh mid-answer never brings a key into the sandbox", async () => {
  const home = join(base, "home")
  const ssh = join(home, ".ssh")
  mkdirSync(ssh, { recursive: true })
  // Built at run time, so the key is in no script's text.
  writeFileSync(join(ssh, "id_ed25519"), `${["PRIVATE", "KEY", "0042"].join("-")}\n`)
  const workspace = join(base, "ws")
  mkdirSync(join(workspace, "skills", "real"), { recursive: true })
  writeFileSync(join(workspace, "skills", "real", "SKILL.md"), "---\nname: mine\ndescription: Mine.\n---\nbody\n")
  writeFileSync(join(workspace, "skills", "real", "id_ed25519"), "public\n")
  symlinkSync("real", join(workspace, "skills", "mine"))
  const xdg = join(base, "xdg")
  mkdirSync(join(xdg, "clanka", "skills"), { recursive: true })
  symlinkSync(join(workspace, "skills", "mine"), join(xdg, "clanka", "skills", "mine"))
  const swap = `cd skills && while :; do ln -sfn ${ssh} a && mv -T a mine; ln -sfn real b && mv -T b mine; done`
  const script = [
    `await bash({ command: ${JSON.stringify(`setsid sh -c ${JSON.stringify(swap)} </dev/null >/dev/null 2>&1 &`)} })`,
    "let leaked = 0, answered = 0",
    // A call may fail while the folder is the other one: only what crossed counts.
    'for (let i = 0; i < 1500 && !leaked; i++) try { const s = await skill("mine"); answered++; for (const file of s.files) if ((await readFile({ path: file }))?.includes("KEY-0042")) leaked++ } catch {}',
    "console.log(leaked, answered > 0)",
  ].join("\n")
  const server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script }] }, { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] }])
  try {
    const result = await clanka(["run", "--json", "-C", workspace, "-m", "anthropic/claude-sonnet-4-5", "--sandbox", "workspace-write", "hello"], {
      env: { ...server.env, HOME: home, XDG_CONFIG_HOME: xdg, XDG_STATE_HOME: undefined, CLANKA_HOME: undefined, CLANKA_NO_SESSION: "1" },
      timeoutMs: 90_000,
    })
    expect(result.code).toBe(0)
    expect(server.requests[1]!.toolResults[0]).toBe("0 true\n")
  } finally {
    await server.close()
  }
}, 100_000)
