import { describe, expect, test, setDefaultTimeout } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { EVERYTHING, everythingStdio } from "../support/mcp-everything.ts"
import { temporaryDirectory } from "../support/temp.ts"

// Each test starts real MCP servers (node) and clanka processes; a loaded machine is slow.
setDefaultTimeout(90_000)

const project = temporaryDirectory("clanka-mcp-cli-")
const xdg = join(project, ".xdg")
mkdirSync(xdg)
writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { everything: everythingStdio, broken: { command: "sh", args: ["-c", "echo 'missing token' >&2; exit 1"] } } }))
// The project's .mcp.json is the user's own here: trusted for the run.
const env = { XDG_CONFIG_HOME: xdg, CLANKA_TRUST_PROJECT: "1" }
const broken = 'clanka: MCP server "broken" failed: exited before it was ready (its last words on stderr: missing token); its tools are missing\n'

describe("MCP servers from .mcp.json, through the command line's executor (a child in the OS sandbox)", () => {
  test("clanka tool mcp.server.tool calls one tool and prints its JSON result", async () => {
    expect(await clanka(["tool", "-C", project, "mcp.everything.get_sum", '{"a":1,"b":2}'], { env })).toEqual({ code: 0, stdout: '"The sum of 1 and 2 is 3."\n', stderr: broken })
    expect(await clanka(["tool", "-C", project, "mcp.everything.get_structured_content", '{"location":"Los Angeles"}'], { env })).toEqual({
      code: 0,
      stdout: '{\n  "temperature": 73,\n  "conditions": "Sunny / Clear",\n  "humidity": 48\n}\n',
      stderr: broken,
    })
    const invalid = await clanka(["tool", "-C", project, "mcp.everything.get_sum", '{"a":1}'], { env })
    expect(invalid).toEqual({ code: 2, stdout: "", stderr: broken + 'clanka: mcp.everything.get_sum: invalid parameters: args: missing required property "b"\n' })
    const missing = await clanka(["tool", "-C", project, "mcp.everything.get_sum"], { env })
    expect(missing).toEqual({ code: 2, stdout: "", stderr: broken + "clanka: mcp.everything.get_sum: missing PARAMS: JSON of type { a: number; b: number } (or - to read them from stdin)\n" })
  })

  test("clanka exec: scripts compose MCP tools; clanka tools shows them", async () => {
    const script = `const sums = await Promise.all([1, 2, 3].map((a) => mcp.everything.get_sum({ a, b: 10 }))); console.log(sums.join("|"))`
    expect(await clanka(["exec", "-C", project, "-e", script], { env })).toEqual({
      code: 0,
      stdout: "The sum of 1 and 10 is 11.|The sum of 2 and 10 is 12.|The sum of 3 and 10 is 13.\n",
      stderr: broken,
    })
    const tools = await clanka(["tools", "-C", project], { env })
    expect(tools.code).toBe(0)
    expect(tools.stdout).toContain('// MCP server "broken" is unavailable (its tools are missing): exited before it was ready (its last words on stderr: missing token)\n')
    expect(tools.stdout).toContain("    echo(args: { /** Message to echo */ message: string }): Promise<string>\n")
  })

  test("without MCP servers nothing changes: the built-in declarations only", async () => {
    const plain = temporaryDirectory("clanka-no-mcp-")
    const tools = await clanka(["tools", "-C", plain], { env })
    expect(tools.stdout).not.toContain("mcp")
    expect(tools.stdout).toContain("declare function readFile(")
  })

  test("a server whose script lives under /tmp still starts: the sandbox's private /tmp lets it be read", async () => {
    // The workspace outside /tmp, the server's script inside it (as in a clone under /tmp).
    const workspace = mkdtempSync("/var/tmp/clanka-mcp-workspace-")
    const scripts = temporaryDirectory("clanka-mcp-script-")
    try {
      const server = join(scripts, "server.mjs")
      writeFileSync(server, `await import(${JSON.stringify(EVERYTHING)})\n`)
      writeFileSync(join(workspace, ".mcp.json"), JSON.stringify({ mcpServers: { local: { command: "node", args: [server, "stdio"] } } }))
      const result = await clanka(["exec", "-C", workspace, "-e", "console.log(await mcp.local.get_sum({ a: 2, b: 3 }))"], { env })
      expect(result).toEqual({ code: 0, stdout: "The sum of 2 and 3 is 5.\n", stderr: "" })
    } finally {
      rmSync(workspace, { recursive: true, force: true })
    }
  })

  test("a server named through a symlink under /tmp that leads outside it still starts", async () => {
    // As node_modules linked into a clone under /tmp: the script's real place is outside /tmp.
    const workspace = mkdtempSync("/var/tmp/clanka-mcp-workspace-")
    const links = temporaryDirectory("clanka-mcp-link-")
    try {
      writeFileSync(join(workspace, "server.mjs"), `await import(${JSON.stringify(EVERYTHING)})\n`)
      symlinkSync(workspace, join(links, "linked"))
      const server = join(links, "linked", "server.mjs")
      writeFileSync(join(workspace, ".mcp.json"), JSON.stringify({ mcpServers: { local: { command: "node", args: [server, "stdio"] } } }))
      const result = await clanka(["exec", "-C", workspace, "-e", "console.log(await mcp.local.get_sum({ a: 2, b: 3 }))"], { env })
      expect(result).toEqual({ code: 0, stdout: "The sum of 2 and 3 is 5.\n", stderr: "" })
    } finally {
      rmSync(workspace, { recursive: true, force: true })
    }
  })
})
