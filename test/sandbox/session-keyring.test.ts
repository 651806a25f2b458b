// The kernel keys of the session that started clanka (a login's keyring: Kerberos tickets kept
// as KEYRING:, keys put there with `keyctl add … @s`) stay out of the scripts' reach. Processes
// inherit their session keyring, and bubblewrap's namespaces do not cut it.
import { afterAll, describe, expect, test } from "bun:test"
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { join } from "node:path"
import { BUN, MAIN, ROOT } from "../support/cli.ts"
import { BACKENDS } from "../support/sandbox-backends.ts"

const HELPER = join(ROOT, "test/support/session-keyring.ts")
const SECRET = `keyring-secret-${process.pid}`
// Outside /tmp, whose sandbox copy is private.
const root = mkdtempSync("/var/tmp/clanka-keyring-")
chmodSync(root, 0o755)
const workspace = join(root, "app")
mkdirSync(workspace)
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** `command` started from a session whose keyring holds SECRET. */
async function inSession(command: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([BUN, HELPER, "hold", SECRET, "--", ...command], { cwd: workspace, env: { ...process.env, NO_COLOR: "1", ...env }, stdout: "pipe", stderr: "pipe", timeout: 60_000 })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, stdout, stderr }
}

test("the session's key is readable outside the sandbox (the attack below can succeed)", async () => {
  const result = await inSession([BUN, HELPER, "read"])
  expect(result.stdout).toContain(`clanka-test-key=${SECRET}`)
})

for (const backend of BACKENDS) describe.skipIf(!backend.available)(`the session keyring (${backend.name})`, () => {
  test("a script cannot read the keys of the session clanka was started from", async () => {
    const script = `console.log(await bash({ command: ${JSON.stringify(`'${BUN}' '${HELPER}' read 2>&1 || true`)} }))`
    const result = await inSession([BUN, MAIN, "exec", "-C", workspace, "-e", script], backend.env)
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(result.stdout).not.toContain(SECRET)
  })

  test("an MCP server started beside the sandbox cannot read them either", async () => {
    const config = join(root, `config-${backend.name}`)
    mkdirSync(join(config, "clanka"), { recursive: true })
    const server = `const k = require("node:child_process").execFileSync(${JSON.stringify(BUN)}, [${JSON.stringify(HELPER)}, "read"]).toString(); process.stderr.write("keys: " + k.replace(/\\n/g, " ") + "\\n"); process.exit(1)`
    await Bun.write(join(config, "clanka/config.json"), JSON.stringify({ mcpServers: { k: { command: BUN, args: ["-e", server] } } }))
    const result = await inSession([BUN, MAIN, "tools", "-C", workspace], { ...backend.env, XDG_CONFIG_HOME: config })
    expect(result.stderr).toContain('MCP server "k" failed')
    expect(result.stderr).not.toContain(SECRET)
  })
})
