// `clanka run` with MCP servers configured: the model sees `mcp` in its prompt and its scripts call
// the tools; a server that fails is one stderr line and a line in the prompt, and the run goes on.
import { afterEach, expect, test, setDefaultTimeout } from "bun:test"
import { writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { clanka } from "../support/cli.ts"
import { startFakeModel, type FakeServer } from "../support/fake-model.ts"
import { EVERYTHING, everythingStdio } from "../support/mcp-everything.ts"
import { temporaryDirectory } from "../support/temp.ts"

// Each test starts real MCP servers (node) and clanka processes; a loaded machine is slow.
setDefaultTimeout(90_000)

const project = temporaryDirectory("clanka-mcp-run-")
writeFileSync(join(project, "clanka.json"), JSON.stringify({ mcpServers: { everything: everythingStdio, broken: { command: "false" } } }))
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

test("the model's scripts call MCP tools; the failed server is named on stderr and in the prompt", async () => {
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: `const r = await mcp.everything.get_structured_content({ location: "Chicago" }); console.log(r.conditions)` }] },
    { blocks: [{ type: "execute", script: `await taskComplete("done")` }] },
  ])
  const result = await clanka(["run", "--json", "-C", project, "what is the weather?"], {
    env: { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", XDG_CONFIG_HOME: join(project, ".xdg"), CLANKA_TRUST_PROJECT: "1" },
  })
  expect(result.stderr).toBe('clanka: MCP server "broken" failed: exited before it was ready; its tools are missing\n')
  expect(result.code).toBe(0)
  const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
  expect(events[0].tools).toContain("mcp")
  expect(events.find((event) => event._tag === "ScriptOutput")).toEqual({ _tag: "ScriptOutput", output: "Light rain / drizzle\n" })
  const system = server.requests[0]!.system
  expect(system).toContain('// MCP server "broken" is unavailable (its tools are missing): exited before it was ready')
  expect(system).toContain("declare const mcp: {")
  expect(system).toContain("    get_sum(args: { /** First number */ a: number; /** Second number */ b: number }): Promise<string>")
})

test("an MCP tool's image reaches the model after the script's output, as a real image block", async () => {
  const { MCP_TINY_IMAGE } = await import(join(dirname(EVERYTHING), "tools/get-tiny-image.js"))
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: "console.log(await mcp.everything.get_tiny_image())" }] },
    { blocks: [{ type: "execute", script: `await taskComplete("done")` }] },
  ])
  const result = await clanka(["run", "--json", "-C", project, "show me the logo"], {
    env: { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", XDG_CONFIG_HOME: join(project, ".xdg"), CLANKA_TRUST_PROJECT: "1", CLANKA_NO_SESSION: "1" },
  })
  expect(result.code).toBe(0)
  const toolResult = server.requests[1]!.body.messages.at(-1).content[0]
  expect(toolResult.content).toEqual([
    {
      type: "text",
      text:
        "Here's the image you requested:\n[image: image/png, 4033 bytes, shown after this output]\nThe image above is the MCP logo.\n" +
        "[image shown after this output: the image of mcp.everything.get_tiny_image (20×20 PNG)]",
    },
    { type: "image", source: { type: "base64", media_type: "image/png", data: MCP_TINY_IMAGE } },
  ])
})
