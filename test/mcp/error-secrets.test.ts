// A server's token put into its URL by ${VAR} (`https://mcp.example.com/mcp?apiKey=${KEY}`, as
// several hosted servers are reached) or that a failing stdio server prints: a message about the
// server goes to stderr, to scripts (`mcp.web is not available: …`) and into the system prompt,
// so it shows `${KEY}` where the value was.
import { expect, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

// Built at run time, so the secret is in no script's text.
const SECRET = ["key", "5b81", "never-shown"].join("-")

test("an MCP server's failure names its URL and its last words with ${VAR} where the secret was", async () => {
  const dir = temporaryDirectory("clanka-mcp-error-secrets-")
  const xdg = join(dir, "xdg")
  mkdirSync(join(xdg, "clanka"), { recursive: true })
  mkdirSync(join(dir, "app"))
  // Port 9 (discard) is closed here: the connection is refused.
  const servers = {
    web: { type: "http", url: "http://127.0.0.1:9/mcp?apiKey=${TEST_MCP_KEY}", headers: { Authorization: "Bearer ${TEST_MCP_KEY}" } },
    local: { command: "sh", args: ["-c", 'echo "bad token $TOK" >&2; exit 3'], env: { TOK: "${TEST_MCP_KEY}" } },
  }
  writeFileSync(join(xdg, "clanka/config.json"), JSON.stringify({ mcpServers: servers }))
  const script = 'for (const call of [() => mcp.web.x({}), () => mcp.local.x({})]) console.log(await call().then(() => "CALLED", (error) => error.message))'
  const result = await clanka(["exec", "-C", join(dir, "app"), "-e", script], { env: { XDG_CONFIG_HOME: xdg, TEST_MCP_KEY: SECRET }, timeoutMs: 30_000 })
  expect(result.stdout + result.stderr).not.toContain(SECRET)
  expect(result.stdout).toContain("mcp.web is not available: http://127.0.0.1:9/mcp?apiKey=${TEST_MCP_KEY}: ")
  expect(result.stdout).toContain("bad token ${TEST_MCP_KEY}")
})
