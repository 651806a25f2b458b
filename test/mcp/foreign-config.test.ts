// A `.mcp.json` written for another agent: the servers clanka cannot use are one stderr line each
// and are skipped, the rest of the file counts; a script calling a server that is not there is told
// why, not handed a TypeError.
import { describe, expect, test, setDefaultTimeout } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { everythingStdio } from "../support/mcp-everything.ts"
import { temporaryDirectory } from "../support/temp.ts"

// Each test starts real MCP servers (node) and clanka processes; a loaded machine is slow.
setDefaultTimeout(90_000)

const project = temporaryDirectory("clanka-mcp-foreign-")
const xdg = join(project, ".xdg")
mkdirSync(xdg)
const file = join(project, ".mcp.json")
writeFileSync(
  file,
  JSON.stringify({
    mcpServers: {
      everything: everythingStdio,
      // Another agent's remote server over SSE, and a name that cannot be mcp.<name>.
      remote: { type: "sse", url: "https://mcp.example.com/sse" },
      "github.com": { command: "gh-mcp" },
      // Its token is set in the other agent's environment, not in this one.
      tokened: { type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${CLANKA_TEST_UNSET_TOKEN}" } },
      broken: { command: "sh", args: ["-c", "exit 1"] },
    },
  }),
)
const env = { XDG_CONFIG_HOME: xdg, CLANKA_TRUST_PROJECT: "1", CLANKA_TEST_UNSET_TOKEN: undefined }
const skipped = [
  `clanka: ${file}: skipped MCP server "remote": SSE servers are not supported; use the Streamable HTTP endpoint with "type": "http"`,
  `clanka: ${file}: skipped MCP server "github.com": server names are letters, digits, _ and - (they become mcp.<name> in scripts)`,
]
const unset = `clanka: ${file}: skipped MCP server "tokened": headers.Authorization: \${CLANKA_TEST_UNSET_TOKEN} is not set; set the variable or give a default with \${CLANKA_TEST_UNSET_TOKEN:-value}`
const broken = 'clanka: MCP server "broken" failed: exited before it was ready; its tools are missing'

describe("a .mcp.json written for another agent", () => {
  test("every command runs: one line per server clanka cannot use, and the usable servers work", async () => {
    const result = await clanka(["exec", "-C", project, "-e", "console.log(await mcp.everything.get_sum({ a: 1, b: 2 }))"], { env })
    expect(result).toEqual({ code: 0, stdout: "The sum of 1 and 2 is 3.\n", stderr: [...skipped, unset, broken, ""].join("\n") })
    // Untrusted, its servers do not start; what clanka could not read is still said, once.
    const plain = await clanka(["exec", "-C", project, "-e", "console.log(1)"], { env: { ...env, CLANKA_TRUST_PROJECT: undefined } })
    expect(plain).toEqual({
      code: 0,
      stdout: "1\n",
      stderr: [...skipped, `clanka: ignored in the untrusted project config: .mcp.json: mcpServers (3); trust it with: clanka trust ${project} (or pass --trust-project for this run)`, ""].join("\n"),
    })
    const config = await clanka(["config", "-C", project, "--json"], { env })
    expect(config.code).toBe(0)
    expect(config.stderr).toBe([...skipped, ""].join("\n"))
    expect(Object.keys(JSON.parse(config.stdout).config.mcpServers)).toEqual(["everything", "tokened", "broken"])
  })

  test("a script calling a server that was skipped or failed to start is told why", async () => {
    const script = [
      `for (const call of [() => mcp.remote.search({ q: "x" }), () => mcp.tokened.list(), () => mcp.broken.run({})]) {`,
      `  try { await call() } catch (error) { console.log(error.message) }`,
      `}`,
      `await mcp.broken.run()`,
    ].join("\n")
    const result = await clanka(["exec", "-C", project, "-e", script], { env })
    expect(result.stdout).toStartWith(
      [
        'mcp.remote is not available: SSE servers are not supported; use the Streamable HTTP endpoint with "type": "http"',
        "mcp.tokened is not available: headers.Authorization: ${CLANKA_TEST_UNSET_TOKEN} is not set; set the variable or give a default with ${CLANKA_TEST_UNSET_TOKEN:-value}",
        "mcp.broken is not available: exited before it was ready",
        "",
      ].join("\n"),
    )
    expect(result.code).toBe(1)
    expect(result.stderr).toEndWith("clanka: the script failed: Error: mcp.broken is not available: exited before it was ready (line 4)\n")
    const tools = await clanka(["tools", "-C", project], { env })
    expect(tools.stdout).toContain('// MCP server "remote" is unavailable (its tools are missing): SSE servers are not supported')
  })
})
