import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { readdirSync } from "node:fs"
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { acp, startAcp } from "../support/acp-client.ts"
import { buildClanka, ROOT } from "../support/cli.ts"
import { startFakeModel } from "../support/fake-model.ts"
import { hostileBunFiles, PROBE_SCRIPT } from "../support/hostile-bun-files.ts"
import { spanTree, startOtlpReceiver } from "../support/otlp-receiver.ts"

// The release artefact must work alone: copied into an empty directory, with a bare environment.
let dir: string
let bin: string

async function run(args: string[], env: Record<string, string> = {}, cwd = dir): Promise<{ code: number; stdout: string; stderr: string }> {
  const vars = Object.entries(env).map(([name, value]) => `${name}=${value}`)
  const child = Bun.spawn(["env", "-i", "PATH=/usr/bin:/bin", ...vars, bin, ...args], { cwd, stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, stdout, stderr }
}

beforeAll(async () => {
  // Built straight into an empty directory of its own: dist/ is left to whoever else builds.
  dir = await mkdtemp(join(tmpdir(), "clanka-alone-"))
  bin = join(dir, "clanka")
  await buildClanka(bin)
  expect(await readdir(dir)).toEqual(["clanka"])
}, 120_000)

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe("the compiled binary, alone", () => {
  test("--version", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"))
    expect(await run(["--version"])).toEqual({ code: 0, stdout: `clanka ${pkg.version}\n`, stderr: "" })
  })

  test("tools: the declarations rendered when it was built are the tools' own", async () => {
    const [{ builtinToolsFor }, { ToolRegistry }] = await Promise.all([import("../../src/tools/registry.ts"), import("../../src/tools/tool-registry.ts")])
    for (const search of [true, false]) {
      const result = await run(search ? ["tools"] : ["tools", "--no-search"])
      expect(result).toEqual({ code: 0, stdout: `${new ToolRegistry(builtinToolsFor({ search })).dts}\n`, stderr: "" })
      expect(result.stdout.includes("declare function search(")).toBe(search)
    }
  })

  test("exec runs a script with tools, and a runaway one is stopped", async () => {
    await writeFile(join(dir, "note.txt"), "from disk\n")
    const ok = await run(["exec", "-e", `console.log(await readFile({ path: "note.txt" }), (await ls(".")).length)`])
    expect(ok).toEqual({ code: 0, stdout: "from disk\n 2\n", stderr: "" })
    const runaway = await run(["exec", "--timeout", "0.3", "-e", "while (true) {}"])
    expect(runaway.code).toBe(1)
    expect(runaway.stderr).toBe("clanka: the script failed: script timed out after 0.3 s and was stopped\n")
  })

  test("config files, whose schemas and trust store load only when a file exists: untrusted, then trusted, then a broken one refused", async () => {
    // Apart from the binary's directory, whose listing another test counts.
    const project = await mkdtemp(join(tmpdir(), "clanka-alone-project-"))
    await writeFile(join(project, "clanka.json"), JSON.stringify({ model: "anthropic/claude-sonnet-4-5", network: true }))
    await writeFile(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { "a.b": { command: "x" } } }))
    try {
      const env = { CLANKA_HOME: join(project, ".state") }
      const skipped = `clanka: ${join(project, ".mcp.json")}: skipped MCP server "a.b": server names are letters, digits, _ and - (they become mcp.<name> in scripts)\n`
      const untrusted = await run(["config", "-C", project], env)
      expect(untrusted).toEqual({
        code: 0,
        stdout: [
          `# ${join(project, ".mcp.json")}: untrusted`,
          `# ${join(project, "clanka.json")}: untrusted`,
          `model = "anthropic/claude-sonnet-4-5"  # ${join(project, "clanka.json")}`,
          `network = true  # ${join(project, "clanka.json")} (ignored: untrusted)`,
          `# untrusted project files may only narrow (model, output, a stricter sandbox, network off); trust them with: clanka trust ${project}`,
          "",
        ].join("\n"),
        stderr: skipped,
      })
      expect((await run(["trust", project], env)).code).toBe(0)
      expect((await run(["config", "-C", project], env)).stdout).toStartWith(`# ${join(project, ".mcp.json")}: trusted\n# ${join(project, "clanka.json")}: trusted\n`)
      await writeFile(join(project, "clanka.json"), '"model"')
      expect(await run(["exec", "-C", project, "-e", "1"], env)).toEqual({ code: 2, stdout: "", stderr: `clanka: ${join(project, "clanka.json")}: expected a JSON object, found a string\n` })
    } finally {
      await rm(project, { recursive: true, force: true })
    }
  })

  test("started in a repository, neither the agent nor its executor reads its .env files or bunfig.toml", async () => {
    // The model's base URL is a variable: a repository's .env that set it would get the user's key.
    const server = await startFakeModel("openai-compatible", [{ blocks: [{ type: "execute", script: 'await taskComplete("sent")' }] }])
    const project = await mkdtemp(join(tmpdir(), "clanka-alone-repository-"))
    const files = hostileBunFiles(project, { OPENAI_BASE_URL: server.env.OPENAI_BASE_URL! })
    try {
      const env = { OPENAI_API_KEY: "the-users-key", XDG_STATE_HOME: process.env.XDG_STATE_HOME! }
      expect(await run(["run", "-m", "openai-compatible/m", "go"], env, project)).toEqual({
        code: 2,
        stdout: "",
        stderr: "clanka: OPENAI_BASE_URL is not set: export the server's URL to use openai-compatible models (e.g. http://localhost:11434/v1)\n",
      })
      expect(server.requests).toEqual([])
      expect(await run(["exec", "-e", PROBE_SCRIPT], {}, project)).toEqual({ code: 0, stdout: "unset unset\n", stderr: "" })
      expect(readdirSync(project).sort()).toEqual(files)
    } finally {
      await Promise.all([server.close(), rm(project, { recursive: true, force: true })])
    }
  })

  test("run exports OpenTelemetry spans in both encodings (the SDK is in the binary, loaded only then)", async () => {
    const server = await startFakeModel("anthropic", Array.from({ length: 2 }, () => ({ blocks: [{ type: "execute" as const, script: 'await taskComplete("ok")' }] })))
    const otlp = await startOtlpReceiver()
    try {
      for (const protocol of ["http/protobuf", "http/json"]) {
        // The session goes to the test run's state directory, not the real home's.
        const env = { ...server.env, XDG_STATE_HOME: process.env.XDG_STATE_HOME!, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol }
        const result = await run(["run", "--json", "go"], env)
        expect([result.code, result.stderr]).toEqual([0, ""])
      }
      expect(otlp.requests.map((request) => request.contentType).sort()).toEqual(["application/json", "application/json", "application/x-protobuf", "application/x-protobuf"])
      const tree = ["invoke_agent clanka", "  chat claude-sonnet-4-5", "  execute_tool execute", "    execute_tool taskComplete"]
      expect(spanTree(otlp.spans)).toEqual([...tree, ...tree])
    } finally {
      await Promise.all([server.close(), otlp.close()])
    }
  })

  test("tool", async () => {
    expect(await run(["tool", "addTodo", "write tests"])).toEqual({
      code: 0,
      stdout: `{\n  "id": 1,\n  "text": "write tests",\n  "completed": false\n}\n`,
      stderr: "",
    })
  })

  test("acp: an editor (the SDK's client side) runs a prompt with a script", async () => {
    const server = await startFakeModel("anthropic", [
      { blocks: [{ type: "reasoning", text: "Multiply." }, { type: "execute", script: "console.log(6 * 7)" }] },
      { blocks: [{ type: "text", text: "42." }] },
    ])
    const editor = await startAcp([], { bin, cwd: dir, env: { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_NO_SESSION: "1" } })
    try {
      await editor.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION })
      const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [] })
      expect(await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "6 times 7?" }] })).toEqual({ stopReason: "end_turn" })
      expect(editor.updates(sessionId).map((update) => update.sessionUpdate)).toEqual(["agent_thought_chunk", "tool_call", "usage_update", "tool_call_update", "tool_call_update", "agent_message_chunk", "usage_update"])
      expect(editor.updates(sessionId)[4]).toMatchObject({ status: "completed", content: [{ type: "content", content: { type: "text", text: "42\n" } }] })
    } finally {
      expect(await editor.close()).toBe(0)
      await server.close()
    }
  })
})
