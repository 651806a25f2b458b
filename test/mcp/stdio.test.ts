import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test"
import { readFile, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { LocalExecutor } from "../../src/executor/local.ts"
import { InvalidParamsError, ScriptError, ToolError, type ScriptImage } from "../../src/contract.ts"
import { EVERYTHING, everythingStdio } from "../support/mcp-everything.ts"
import { findProcess, ownSleep } from "../support/processes.ts"
import { temporaryDirectory } from "../support/temp.ts"

// Each test starts real MCP servers (node) and clanka processes; a loaded machine is slow.
setDefaultTimeout(90_000)

const dir = temporaryDirectory("clanka-mcp-")
const pidFile = join(dir, "server.pid")

const executor = new LocalExecutor({
  directory: dir,
  mcp: {
    mcpServers: {
      everything: everythingStdio,
      // The same server behind a shell that records its pid, so a test can kill it mid-call.
      mortal: { command: "sh", args: ["-c", `echo $$ > ${pidFile}; exec node ${everythingStdio.args.map((a) => `'${a}'`).join(" ")}`] },
      missing: { command: "/nonexistent/mcp-server" },
      crashes: { command: "sh", args: ["-c", "echo 'config error: no token' >&2; exit 1"] },
      silent: { command: "sleep", args: ["30"], startupTimeoutSec: 0.5 },
    },
  },
})
afterAll(() => executor.close())

async function run(script: string): Promise<{ output: string; error?: string }> {
  let output = ""
  try {
    for await (const text of executor.execute({ script, onTaskComplete() {}, onSubagent: async () => "" })) output += text
    return { output }
  } catch (error) {
    if (!(error instanceof ScriptError)) throw error
    return { output, error: error.message }
  }
}

describe("stdio MCP servers on the executor's side", () => {
  test("servers start in parallel at the capabilities request; failures are named, the rest works", async () => {
    const caps = await executor.capabilities()
    expect(Object.fromEntries(caps.mcpFailures!.map((failure) => [failure.server, failure.error]))).toEqual({
      missing: expect.stringMatching(/^cannot run its command: .*nonexistent/),
      crashes: "exited before it was ready (its last words on stderr: config error: no token)",
      silent: "did not start within 0.5 s",
    })
    // The prompt names them too, and declares the tools of the servers that started.
    expect(caps.toolsDts).toContain('// MCP server "crashes" is unavailable (its tools are missing): exited before it was ready (its last words on stderr: config error: no token)')
    expect(caps.toolsDts).toContain("declare const mcp: {")
    expect(caps.toolsDts).toContain("get_sum(args: { a: number; b: number }): Promise<string>")
    expect(caps.toolsDts).toContain("get_structured_content(args: { location: \"New York\" | \"Chicago\" | \"Los Angeles\" }): Promise<{ temperature: number; conditions: string; humidity: number }>")
    expect(caps.toolsDts).toContain("declare function readFile(")
    // A tool that can only run as an MCP task is left out: a script could never call it.
    expect(caps.toolsDts).not.toContain("simulate_research_query")
  })

  test("servers start at once: two that never answer cost one time limit, not two", async () => {
    // Durations of this test run's own: another run at once has its own `sleep`s.
    const [first, second] = [ownSleep("31"), ownSleep("32")]
    const slow = new LocalExecutor({
      directory: dir,
      mcp: { mcpServers: { one: { command: "sleep", args: [first], startupTimeoutSec: 1.5 }, two: { command: "sh", args: ["-c", `trap '' TERM; exec sleep ${second}`], startupTimeoutSec: 1.5 } } },
    })
    try {
      const started = performance.now()
      const caps = await slow.capabilities()
      expect(performance.now() - started).toBeLessThan(2900)
      expect(caps.mcpFailures).toEqual([
        { server: "one", error: "did not start within 1.5 s" },
        { server: "two", error: "did not start within 1.5 s" },
      ])
      // Without a server that started there is no mcp object, only the failures.
      expect(caps.toolsDts).not.toContain("declare const mcp")
      expect(caps.toolsDts).toContain('// MCP server "two" is unavailable (its tools are missing): did not start within 1.5 s')
      expect(findProcess(["sleep", second])).toBeNumber()
    } finally {
      await slow.close()
    }
    // Closing the executor ends its servers, also one that ignores SIGTERM and its closed stdin.
    for (let i = 0; i < 20 && (findProcess(["sleep", first]) ?? findProcess(["sleep", second])) !== undefined; i++) await Bun.sleep(50)
    expect(findProcess(["sleep", first])).toBeUndefined()
    expect(findProcess(["sleep", second])).toBeUndefined()
  })

  test("calls with arguments: text content is a string, structuredContent an object, images a placeholder", async () => {
    const { output, error } = await run(`
      console.log(await mcp.everything.get_sum({ a: 2, b: 40 }))
      const weather = await mcp.everything.get_structured_content({ location: "Chicago" })
      console.log(typeof weather, weather.temperature, Array.isArray([weather]))
      console.log(await mcp.everything.get_tiny_image())
      console.log(await mcp.everything.echo({ message: "hi" }))
    `)
    expect(error).toBeUndefined()
    expect(output).toBe(
      "The sum of 2 and 40 is 42.\nobject 36 true\nHere's the image you requested:\n[image: image/png, 4033 bytes]\nThe image above is the MCP logo.\nEcho: hi\n",
    )
  })

  test("an image in a tool's result goes to the execute's images, within the model's limits; the placeholder says so", async () => {
    const { MCP_TINY_IMAGE } = await import(join(dirname(EVERYTHING), "tools/get-tiny-image.js"))
    const received: ScriptImage[] = []
    const outputs: string[] = []
    for (const images of [{ maxBytes: 1 << 20, receive: (image: ScriptImage) => received.push(image) }, { maxBytes: 4000, receive: () => {} }, { refused: "the model takes none" }]) {
      let output = ""
      for await (const text of executor.execute({ script: "console.log(await mcp.everything.get_tiny_image())", onTaskComplete() {}, onSubagent: async () => "", images })) output += text
      outputs.push(output.split("\n")[1]!)
    }
    expect(outputs).toEqual([
      "[image: image/png, 4033 bytes, shown after this output]",
      "[image: image/png, 4033 bytes, not shown: the image of mcp.everything.get_tiny_image is 4033 bytes; the model takes images up to 4000 bytes]",
      "[image: image/png, 4033 bytes, not shown: the model takes none]",
    ])
    expect(received).toEqual([
      { mediaType: "image/png", data: MCP_TINY_IMAGE, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), width: 20, height: 20, tool: "mcp.everything.get_tiny_image" },
    ])
  })

  test("arguments are checked against the tool's schema before the call, as a built-in tool's are", async () => {
    const { output, error } = await run(`await mcp.everything.get_sum({ a: "2" })`)
    expect(error).toBe('Error: mcp.everything.get_sum: invalid parameters: args: missing required property "b"; a: expected number, got string (line 1)')
    expect(output).toContain("  1 | await mcp.everything.get_sum")
    const direct = executor.executeUnsafe("mcp.everything.get_structured_content", { location: "Paris" })
    await expect(direct).rejects.toBeInstanceOf(InvalidParamsError)
    await expect(direct).rejects.toThrow('mcp.everything.get_structured_content: invalid parameters: location: must be one of "New York", "Chicago", "Los Angeles"')
  })

  test("an isError result throws with the server's text", async () => {
    // The schema says number; the server itself refuses a fraction, with an isError result.
    const { error } = await run(`await mcp.everything.get_resource_reference({ resourceType: "Text", resourceId: 1.5 })`)
    expect(error).toBe("Error: mcp.everything.get_resource_reference: Invalid resourceId: 1.5. Must be a finite positive integer. (line 1)")
    const direct = executor.executeUnsafe("mcp.everything.gzip_file_as_resource", { data: "ftp://example.com/x" })
    await expect(direct).rejects.toBeInstanceOf(ToolError)
    await expect(direct).rejects.toThrow("mcp.everything.gzip_file_as_resource: Error processing file ftp://example.com/x: Unsupported URL protocol for ftp://example.com/x. Only http, https, and data URLs are supported.")
  })

  test("mcp.describe returns one tool's full declaration, by script name or MCP name", async () => {
    const { output } = await run(`console.log(await mcp.describe("everything.get-sum")); console.log(await mcp.describe("everything.get_sum") === await mcp.describe("everything.get-sum"))`)
    expect(output).toBe(
      '/** Returns the sum of two numbers (MCP name "get-sum") */\nmcp.everything.get_sum(args: { /** First number */ a: number; /** Second number */ b: number }): Promise<string>\ntrue\n',
    )
    const { error } = await run(`await mcp.describe("everything.nope")`)
    expect(error).toStartWith('Error: mcp.describe: no MCP tool "everything.nope" (write "server.tool"); everything has everything.echo, ')
  })

  test("a server that dies mid-call: a clear script error; the executor and the other servers go on", async () => {
    const pid = Number((await readFile(pidFile, "utf8")).trim())
    const { output, error } = await run(`
      const call = mcp.mortal.trigger_long_running_operation({ duration: 20, steps: 2 })
      await sleep(300)
      await bash({ command: "kill -9 ${pid}" })
      await call
    `)
    expect(error).toMatch(/^Error: mcp\.mortal\.trigger_long_running_operation: the MCP server "mortal" exited during the call \(its last words on stderr: .*\) \(line 2\)$/)
    expect(output).toContain("const call = mcp.mortal.trigger_long_running_operation")
    const after = await run(`
      try { await mcp.mortal.echo({ message: "x" }) } catch (e) { console.log(e.message) }
      console.log(await mcp.everything.echo({ message: "still here" }))
      console.log((await ls(".")).includes("server.pid"))
    `)
    expect(after.error).toBeUndefined()
    expect(after.output).toMatch(/^mcp\.mortal\.echo: the MCP server "mortal" is not running: it exited \(its last words on stderr: .*\)\nEcho: still here\ntrue\n$/)
  })

  test("servers added while a script runs are globals of the next script, on the same worker too", async () => {
    const late = new LocalExecutor({ directory: dir })
    try {
      const first = (async () => {
        let output = ""
        // Runs until the test says the servers are up.
        const script = 'while (!(await ls(".")).includes("late-go")) await sleep(10); console.log(typeof mcp)'
        for await (const text of late.execute({ script, onTaskComplete() {}, onSubagent: async () => "" })) output += text
        return output
      })()
      // Started while the script runs (the worker is busy, not idle).
      await late.capabilities({ mcpServers: { everything: everythingStdio } })
      await writeFile(join(dir, "late-go"), "")
      expect(await first).toBe("undefined\n")
      let output = ""
      for await (const text of late.execute({ script: 'console.log(await mcp.everything.echo({ message: "late" }))', onTaskComplete() {}, onSubagent: async () => "" })) output += text
      expect(output).toBe("Echo: late\n")
    } finally {
      await late.close()
    }
  })
})
