import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { BUN, MAIN } from "../support/cli.ts"
import { everythingStdio } from "../support/mcp-everything.ts"
import { temporaryDirectory } from "../support/temp.ts"

// Each test starts real MCP servers (node) and clanka processes; a loaded machine is slow.
setDefaultTimeout(90_000)

const project = temporaryDirectory("clanka-serve-")
writeFileSync(join(project, "clanka.json"), JSON.stringify({ mcpServers: { everything: everythingStdio } }))
writeFileSync(join(project, "notes.txt"), "one\ntwo\n")

/** The SDK's own client, talking to `clanka mcp` started from the CLI entry. */
async function connect(args: string[]): Promise<Client> {
  const client = new Client({ name: "test", version: "1" })
  await client.connect(
    new StdioClientTransport({ command: BUN, args: [MAIN, "mcp", ...args], env: { ...(process.env as Record<string, string>), XDG_CONFIG_HOME: join(project, ".xdg"), CLANKA_TRUST_PROJECT: "1" }, stderr: "pipe" }),
  )
  return client
}

const text = (result: object) => ((result as { content?: unknown }).content as { type: string; text: string }[]).map((block) => block.text).join("")

describe("clanka mcp: execute as an MCP tool", () => {
  let client: Client
  beforeAll(async () => {
    client = await connect(["-C", project])
  })
  afterAll(() => client.close())

  test("lists one tool, execute, with the sandbox's declarations in its description", async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(["execute"])
    expect(tools[0]!.inputSchema).toMatchObject({ type: "object", properties: { script: { type: "string" } }, required: ["script"] })
    expect(tools[0]!.description).toContain("declare function readFile(")
    expect(tools[0]!.description).toContain(`Paths are relative to ${project}.`)
    // The project's own MCP servers are there as functions too.
    expect(tools[0]!.description).toContain("get_sum(args: { /** First number */ a: number; /** Second number */ b: number }): Promise<string>")
  })

  test("the description stands on its own (no system prompt there) and declares no delegate(), which needs a model", async () => {
    const { tools } = await client.listTools()
    const description = tools[0]!.description!
    expect(description).not.toContain("system prompt")
    expect(description).toStartWith("Run a JavaScript program in clanka's sandbox. The functions declared below are async globals")
    expect(description).not.toContain("delegate")
    expect(description).not.toContain("sub-agent")
    // Its neighbours stay.
    expect(description).toContain("declare function taskComplete(output: string): Promise<void>\n/** Wait for the given number of milliseconds. */\ndeclare function sleep(")
  })

  test("runs scripts against the directory: tools, MCP tools, output", async () => {
    const result = await client.callTool({
      name: "execute",
      arguments: { script: `const lines = (await readFile({ path: "notes.txt" })).trim().split("\\n"); await writeFile({ path: "out.txt", content: lines.reverse().join(",") }); console.log(lines.length, await mcp.everything.get_sum({ a: 1, b: 1 }))` },
    })
    expect(result.isError).toBeUndefined()
    expect(text(result)).toBe("2 The sum of 1 and 1 is 2.\n")
    expect(readFileSync(join(project, "out.txt"), "utf8")).toBe("two,one")
  })

  test("a script that throws is an isError result with its report", async () => {
    const result = await client.callTool({ name: "execute", arguments: { script: `console.log("before")\nthrow new Error("boom")` } })
    expect(result.isError).toBe(true)
    expect(text(result)).toBe('before\nError: boom (line 2)\n  2 | throw new Error("boom")\nThe script failed: Error: boom (line 2)\n')
  })

  test("--sandbox read-only applies", async () => {
    const readOnly = await connect(["-C", project, "--sandbox", "read-only"])
    try {
      const result = await readOnly.callTool({ name: "execute", arguments: { script: `await writeFile({ path: "x.txt", content: "x" })` } })
      expect(result.isError).toBe(true)
      expect(text(result)).toContain("writeFile: cannot write x.txt: the sandbox is read-only")
    } finally {
      await readOnly.close()
    }
  })
})

test("clanka mcp answers every line: too large, not JSON, not a request, params not an object; then goes on serving", async () => {
  const child = Bun.spawn([BUN, MAIN, "mcp", "-C", project, "--sandbox", "off"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>), XDG_CONFIG_HOME: join(project, ".xdg") },
  })
  const lines: string[] = []
  let buffered = ""
  const reading = (async () => {
    for await (const chunk of child.stdout) {
      buffered += new TextDecoder().decode(chunk)
      let newline: number
      while ((newline = buffered.indexOf("\n")) !== -1) {
        lines.push(buffered.slice(0, newline))
        buffered = buffered.slice(newline + 1)
      }
    }
  })()
  const send = (text: string) => child.stdin.write(text + "\n")
  const answers = async (count: number) => {
    for (let waited = 0; lines.length < count && waited < 20_000; waited += 20) await Bun.sleep(20)
    return lines.map((line) => JSON.parse(line))
  }
  send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }))
  await answers(1)
  send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
  send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "execute", arguments: { script: `// ${"x".repeat(16 * 2 ** 20)}` } } }))
  send("{not json")
  send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: "not-an-object" }))
  send(JSON.stringify({ jsonrpc: "2.0", id: 4 }))
  send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "execute", arguments: { script: 'console.log("still here")' } } }))
  const got = await answers(6)
  child.stdin.end()
  await child.exited
  await reading
  expect(got.slice(1)).toEqual([
    { jsonrpc: "2.0", id: null, error: { code: -32600, message: "request too large: a line may hold at most 8 MiB" } },
    { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error: the line is not valid JSON" } },
    { jsonrpc: "2.0", id: 3, error: { code: -32602, message: "invalid params for tools/call: params must be an object" } },
    { jsonrpc: "2.0", id: 4, error: { code: -32600, message: 'invalid request: needs "jsonrpc": "2.0" and a string "method"' } },
    { jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "still here\n" }] } },
  ])
  expect(child.exitCode).toBe(0)
})

test("a client that never reads its answers: clanka mcp stops reading its requests, so its memory stays bounded", async () => {
  const pidFile = join(project, "mcp.pid")
  // Its stdout goes to a pipe no one reads (sleep): the pipe fills, and every answer after that waits.
  const child = Bun.spawn(["sh", "-c", `sh -c 'echo $$ > "$0"; exec "$1" "$2" mcp -C "$3" --sandbox off' '${pidFile}' '${BUN}' '${MAIN}' '${project}' | sleep 60`], {
    stdin: "pipe",
    stdout: "ignore",
    stderr: "ignore",
    env: { ...(process.env as Record<string, string>), XDG_CONFIG_HOME: join(project, ".xdg") },
  })
  const send = (message: object) => child.stdin.write(JSON.stringify(message) + "\n")
  send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "deaf", version: "1" } } })
  send({ jsonrpc: "2.0", method: "notifications/initialized" })
  let pid = 0
  for (let waited = 0; waited < 20_000 && !pid; waited += 50) {
    await Bun.sleep(50)
    pid = Number(existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim() : 0)
  }
  const rssMiB = () => Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)![1]) / 1024
  await Bun.sleep(2000)
  const before = rssMiB()
  // 20,000 requests of 50 bytes, each answered with the execute tool's description (~10 KiB).
  for (let id = 1; id <= 20_000; id++) send({ jsonrpc: "2.0", id, method: "tools/list" })
  await Promise.race([child.stdin.flush(), Bun.sleep(5000)])
  await Bun.sleep(3000)
  const after = rssMiB()
  process.kill(pid, "SIGKILL")
  child.kill("SIGKILL")
  expect(after - before).toBeLessThan(60)
})

test("a script that kills its executor: that call says so, and the next call gets a new executor", async () => {
  const client = await connect(["-C", project])
  try {
    const killed = await client.callTool({ name: "execute", arguments: { script: 'await bash({ command: "kill -9 $PPID" }); console.log("not reached")' } })
    expect(killed.isError).toBe(true)
    expect(text(killed)).toMatch(/^\[stopped: .*executor stopped unexpectedly.*\]\n\[a new executor starts for the next call\]\n$/)
    const next = await client.callTool({ name: "execute", arguments: { script: 'console.log(await readFile({ path: "notes.txt" }))' } })
    expect(text(next)).toBe("one\ntwo\n\n")
    expect(next.isError).toBeUndefined()
  } finally {
    await client.close()
  }
})
