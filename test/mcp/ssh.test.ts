// Stdio MCP servers over --ssh: the agent reads the project's .mcp.json here and the executor on
// the far side starts the server there, in its directory.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { BUN, clanka, MAIN } from "../support/cli.ts"
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
    env: { ...host.env, XDG_CONFIG_HOME: join(host.local, ".xdg"), CLANKA_TRUST_PROJECT: "1" },
  })
  expect(result).toEqual({ code: 0, stdout: `The sum of 3 and 4 is 7.\n${host.remoteDir}\n`, stderr: "" })
  expect(existsSync(join(host.local, "where.txt"))).toBe(false)
})

test.skipIf(!available)("clanka mcp --ssh serves execute backed by the executor on the far host", async () => {
  const client = new Client({ name: "test", version: "1" })
  await client.connect(
    new StdioClientTransport({
      command: BUN,
      args: [MAIN, "mcp", "--ssh", host.target, "--remote-bin", host.remoteBin],
      cwd: host.local,
      env: { ...(process.env as Record<string, string>), ...host.env, XDG_CONFIG_HOME: join(host.local, ".xdg"), CLANKA_TRUST_PROJECT: "1" },
      stderr: "pipe",
    }),
  )
  try {
    const { tools } = await client.listTools()
    expect(tools[0]!.description).toContain(`Paths are relative to ${host.remoteDir}.`)
    const result = await client.callTool({ name: "execute", arguments: { script: `console.log(await readFile({ path: "README.md" }), await mcp.everything.echo({ message: "far" }))` } })
    expect((result as { content: { text: string }[] }).content[0]!.text).toBe("remote\n Echo: far\n")
  } finally {
    await client.close()
  }
})
