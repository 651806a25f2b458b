// The compiled binary carries the MCP SDK: alone in an empty directory with a bare environment it
// is an MCP client (of server-everything) and an MCP server (for the SDK's own client).
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test"
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { buildClanka } from "../support/cli.ts"
import { everythingStdio } from "../support/mcp-everything.ts"

// Each test starts real MCP servers (node) and clanka processes; a loaded machine is slow.
setDefaultTimeout(90_000)

let dir: string
let bin: string
// The .mcp.json next to the binary is the user's own: trusted for the run.
const bare = ["env", "-i", "PATH=/usr/bin:/bin", "CLANKA_TRUST_PROJECT=1"]

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "clanka-mcp-bin-"))
  bin = join(dir, "clanka")
  await buildClanka(bin)
  expect(await readdir(dir)).toEqual(["clanka"])
  await writeFile(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { everything: everythingStdio } }))
}, 120_000)

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe("the compiled binary and MCP", () => {
  test("as a client: a script calls a stdio server's tool", async () => {
    const child = Bun.spawn([...bare, bin, "exec", "-e", "console.log(await mcp.everything.get_sum({ a: 5, b: 6 }))"], { cwd: dir, stdout: "pipe", stderr: "pipe" })
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: "The sum of 5 and 6 is 11.\n", stderr: "" })
  })

  test("as a server: clanka mcp answers the SDK's client", async () => {
    const client = new Client({ name: "test", version: "1" })
    await client.connect(new StdioClientTransport({ command: "env", args: ["-i", "PATH=/usr/bin:/bin", "CLANKA_TRUST_PROJECT=1", bin, "mcp", "-C", dir], stderr: "pipe" }))
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(["execute"])
      const result = await client.callTool({ name: "execute", arguments: { script: "console.log((await ls('.')).sort().join(' '), await mcp.everything.echo({ message: 'm' }))" } })
      expect((result as { content: { text: string }[] }).content[0]!.text).toBe(".mcp.json clanka Echo: m\n")
    } finally {
      await client.close()
    }
  })
})
