import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test"
import { writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { BUN, clanka, MAIN } from "../support/cli.ts"
import { EVERYTHING, everythingStdio } from "../support/mcp-everything.ts"
import { temporaryDirectory } from "../support/temp.ts"

// Each test starts real MCP servers (node) and clanka processes; a loaded machine is slow.
setDefaultTimeout(90_000)

const project = temporaryDirectory("clanka-mcp-http-")
let server: ReturnType<typeof Bun.spawn> | undefined
let port = 0

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve))
  const port = (probe.address() as { port: number }).port
  await new Promise((resolve) => probe.close(resolve))
  return port
}

/** server-everything's Streamable HTTP mode, a real HTTP MCP server on loopback. */
async function startHttpServer(port: number): Promise<ReturnType<typeof Bun.spawn>> {
  const server = Bun.spawn(["node", EVERYTHING, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdout: "ignore", stderr: "pipe" })
  const reader = (server.stderr as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  for (let seen = ""; !seen.includes("listening on port"); ) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`server-everything did not start: ${seen}`)
    seen += decoder.decode(value, { stream: true })
  }
  // Keep draining its log so a full pipe never blocks it.
  void (async () => {
    while (!(await reader.read()).done);
  })()
  return server
}

beforeAll(async () => {
  port = await freePort()
  server = await startHttpServer(port)
  writeFileSync(
    join(project, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        remote: { type: "http", url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: "Bearer ${TEST_MCP_TOKEN}" } },
        down: { type: "http", url: `http://127.0.0.1:${port}/nothing` },
        // A stdio server beside them, started by the executor at the same time.
        local: everythingStdio,
      },
    }),
  )
})
afterAll(() => {
  server?.kill()
})

// The project's .mcp.json is the user's own here: trusted for the run.
const env = () => ({ XDG_CONFIG_HOME: join(project, ".xdg"), TEST_MCP_TOKEN: "secret-token", CLANKA_TRUST_PROJECT: "1" })
const down = /^clanka: MCP server "down" failed: http:\/\/127\.0\.0\.1:\d+\/nothing: Streamable HTTP error: Error POSTing to endpoint: Error Cannot POST \/nothing; its tools are missing\n$/

describe("HTTP MCP servers on the agent's side", () => {
  test("their tools are sandbox functions; calls go through the agent, also with the executor's network off", async () => {
    const script = `
      // The executor's sandbox has no network: the server is out of the script's own reach.
      try { await fetch("http://127.0.0.1:${port}/mcp"); console.log("reached") } catch { console.log("no network") }
      console.log(await mcp.remote.get_sum({ a: 20, b: 22 }), await mcp.local.get_sum({ a: 1, b: 1 }))
      console.log(JSON.stringify(await mcp.remote.get_structured_content({ location: "New York" })))
      try { await mcp.remote.get_sum({ a: 1 }) } catch (e) { console.log(e.message) }
      try { await mcp.remote.get_resource_reference({ resourceId: 0.5 }) } catch (e) { console.log(e.message) }
    `
    const result = await clanka(["exec", "-C", project, "-e", script], { env: env() })
    expect(result.stdout).toBe(
      [
        "no network",
        "The sum of 20 and 22 is 42. The sum of 1 and 1 is 2.",
        '{"temperature":33,"conditions":"Cloudy","humidity":82}',
        'mcp.remote.get_sum: invalid parameters: args: missing required property "b"',
        "mcp.remote.get_resource_reference: Invalid resourceId: 0.5. Must be a finite positive integer.",
        "",
      ].join("\n"),
    )
    expect(result.stderr).toMatch(down)
    expect(result.code).toBe(0)
  })

  test("clanka tool and clanka tools see them; the failed one is named in the declarations", async () => {
    const called = await clanka(["tool", "-C", project, "mcp.remote.echo", '{"message":"over http"}'], { env: env() })
    expect(called.stdout).toBe('"Echo: over http"\n')
    const tools = await clanka(["tools", "-C", project], { env: env() })
    expect(tools.stdout).toContain("  remote: {\n")
    expect(tools.stdout).toContain("  local: {\n")
    expect(tools.stdout).toMatch(/\/\/ MCP server "down" is unavailable \(its tools are missing\): http:\/\/127\.0\.0\.1:\d+\/nothing: Streamable HTTP error/)
  })

  test("a header naming an unset variable leaves that server out, in one line; the others still start", async () => {
    const script = `try { await mcp.remote.echo({ message: "x" }) } catch (e) { console.log(e.message) }; console.log(await mcp.local.echo({ message: "here" }))`
    const result = await clanka(["exec", "-C", project, "-e", script], { env: { ...env(), TEST_MCP_TOKEN: undefined } })
    const unset = `remote: headers.Authorization: \${TEST_MCP_TOKEN} is not set; set the variable or give a default with \${TEST_MCP_TOKEN:-value}`
    expect(result.stdout).toBe(`mcp.${unset.replace(":", " is not available:")}\nEcho: here\n`)
    expect(result.stderr).toStartWith(`clanka: ${join(project, ".mcp.json")}: skipped MCP server "${unset.replace(": ", '": ')}\nclanka: MCP server "down" failed`)
    expect(result.code).toBe(0)
  })

  test("a server that dies in the middle of a call fails that call with a clear error; the script goes on", async () => {
    const dyingPort = await freePort()
    const dying = await startHttpServer(dyingPort)
    const dir = temporaryDirectory("clanka-mcp-http-dying-")
    writeFileSync(join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { dying: { type: "http", url: `http://127.0.0.1:${dyingPort}/mcp` } } }))
    const script = `console.log("calling"); try { await mcp.dying.trigger_long_running_operation({ duration: 120, steps: 120 }) } catch (e) { console.log("caught:", e.message) }`
    const child = Bun.spawn([BUN, MAIN, "exec", "-C", dir, "--sandbox", "off", "--timeout", "100", "-e", script], {
      env: { ...process.env, XDG_CONFIG_HOME: join(dir, ".xdg"), CLANKA_TRUST_PROJECT: "1" },
      stdout: "pipe",
      stderr: "pipe",
    })
    const reader = (child.stdout as ReadableStream<Uint8Array>).getReader()
    let out = ""
    while (!out.includes("calling")) {
      const { value, done } = await reader.read()
      if (done) break
      out += new TextDecoder().decode(value)
    }
    // The call is under way (the operation reports progress every second): the server dies.
    await Bun.sleep(1500)
    dying.kill("SIGKILL")
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) out += new TextDecoder().decode(chunk.value)
    expect(await child.exited).toBe(0)
    expect(out).toMatch(/^calling\ncaught: mcp\.dying\.trigger_long_running_operation: the MCP server "dying" stopped answering \(.+\) during the call\n$/)
  })
})
