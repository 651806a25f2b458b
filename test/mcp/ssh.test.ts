// Stdio MCP servers over --ssh: the agent reads the project's .mcp.json here and the executor on
// the far side starts the server there, in its directory.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { everythingStdio } from "../support/mcp-everything.ts"
import { sshdAvailable, startSshProject, type SshProject } from "../support/sshd.ts"

const available = sshdAvailable()
let host: SshProject
setDefaultTimeout(60_000)

beforeAll(async () => {
  if (!available) return
  host = await startSshProject("clanka-mcp-ssh-", { "README.md": "remote\n" })
  const start = `pwd > where.txt; exec node ${everythingStdio.args.map((arg) => `'${arg}'`).join(" ")}`
  writeFileSync(join(host.local, ".mcp.json"), JSON.stringify({ mcpServers: { everything: { command: "sh", args: ["-c", start] } } }))
})

afterAll(async () => {
  if (available) await host.stop()
})

test.skipIf(!available)("a stdio MCP server runs on the executor's host, in its directory", async () => {
  const script = `console.log(await mcp.everything.get_sum({ a: 3, b: 4 })); console.log((await readFile({ path: "where.txt" })).trim())`
  const result = await clanka(["exec", "--ssh", host.target, "--remote-bin", host.remoteBin, "-e", script], {
    cwd: host.local,
    env: { ...host.env, XDG_CONFIG_HOME: join(host.local, ".xdg") },
  })
  expect(result).toEqual({ code: 0, stdout: `The sum of 3 and 4 is 7.\n${host.remoteDir}\n`, stderr: "" })
  expect(existsSync(join(host.local, "where.txt"))).toBe(false)
})
