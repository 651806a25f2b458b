// An MCP server is another program's output: its tool names, descriptions and last words on
// stderr reach the terminal (clanka tools, the failure line) and the model's prompt. Nothing in
// them may drive the terminal, and no name may break the `mcp` object scripts call through.
import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, clanka, MAIN, ROOT } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

setDefaultTimeout(90_000)

const HOSTILE = join(ROOT, "test/support/hostile-mcp.ts")
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/

function project(servers: Record<string, unknown>): { dir: string; env: Record<string, string> } {
  const dir = temporaryDirectory("clanka-mcp-hostile-")
  const xdg = join(dir, ".xdg")
  mkdirSync(join(xdg, "clanka"), { recursive: true })
  writeFileSync(join(xdg, "clanka/config.json"), JSON.stringify({ mcpServers: servers }))
  return { dir, env: { XDG_CONFIG_HOME: xdg } }
}

describe("a hostile MCP server", () => {
  test("escape sequences in its names, descriptions and stderr reach neither the terminal nor the prompt", async () => {
    const { dir, env } = project({ h: { command: BUN, args: [HOSTILE, "names"] }, dies: { command: BUN, args: [HOSTILE, "stderr-escape"] } })
    const tools = await clanka(["tools", "-C", dir], { env })
    expect(tools.code).toBe(0)
    expect(tools.stdout).toContain("does toString ^[]0;pwned^G^[[2JM-^[31m")
    expect(tools.stdout).toContain('(MCP name "esc\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m")')
    expect(tools.stdout).toContain('// MCP server "dies" is unavailable (its tools are missing): exited before it was ready (its last words on stderr: bad token ^[]0;pwned^G^[[2JM-^[31m)')
    expect(tools.stdout).not.toMatch(CONTROL)
    expect(tools.stderr).toBe('clanka: MCP server "dies" failed: exited before it was ready (its last words on stderr: bad token ^[]0;pwned^G^[[2JM-^[31m); its tools are missing\n')
  })

  test("tools named after prototype keys (__proto__, constructor, toString, then) are called by their names", async () => {
    const { dir, env } = project({ h: { command: BUN, args: [HOSTILE, "names"] } })
    const script = `const out = []
for (const name of ["__proto__", "constructor", "toString", "then", "valueOf", "hasOwnProperty", "a_b", "with_space"]) out.push(await mcp.h[name]({ x: "1" }))
console.log(out.join("|"))
console.log(typeof ({}).toString(), Object.keys(mcp).join(","))`
    const result = await clanka(["exec", "-C", dir, "-e", script], { env })
    expect(result).toEqual({
      code: 0,
      stdout: 'called "__proto__"|called "constructor"|called "toString"|called "then"|called "valueOf"|called "hasOwnProperty"|called "a.b"|called "with space"\nstring h,describe\n',
      stderr: "",
    })
  })

  test("a server named like a member of every object (toString, valueOf) is a server of its own under mcp", async () => {
    const { dir, env } = project({ toString: { command: BUN, args: [HOSTILE, "names"] }, valueOf: { command: BUN, args: [HOSTILE, "names"] } })
    const script = `console.log(Object.keys(mcp).sort().join(","), await mcp.toString.a_b(), await mcp.valueOf.with_space(), typeof Object.prototype.toString.a_b)`
    expect(await clanka(["exec", "-C", dir, "-e", script], { env })).toEqual({ code: 0, stdout: 'describe,toString,valueOf called "a.b" called "with space" undefined\n', stderr: "" })
  })

  test("the server names __proto__, constructor and prototype are refused, not lost without a word", async () => {
    const { dir, env } = project({ constructor: { command: BUN, args: [HOSTILE, "names"] } })
    const config = join(dir, ".xdg/clanka/config.json")
    expect(await clanka(["config", "-C", dir], { env })).toEqual({ code: 2, stdout: "", stderr: `clanka: ${config}: mcpServers.constructor: constructor cannot be a server name (JavaScript objects treat it specially)\n` })
    writeFileSync(config, '{ "mcpServers": { "__proto__": { "command": "x" } } }')
    expect((await clanka(["config", "-C", dir], { env })).stderr).toContain("mcpServers.__proto__: __proto__ cannot be a server name")
    // Another agent's .mcp.json: the server is skipped with its line.
    writeFileSync(config, "{}")
    writeFileSync(join(dir, ".mcp.json"), '{ "mcpServers": { "__proto__": { "command": "x" }, "prototype": { "command": "y" } } }')
    const listed = await clanka(["config", "-C", dir], { env })
    expect(listed.code).toBe(0)
    expect(listed.stderr).toContain(`skipped MCP server "__proto__": __proto__ cannot be a server name`)
    expect(listed.stderr).toContain(`skipped MCP server "prototype": prototype cannot be a server name`)
  })

  for (const through of ["the agent", "clanka executor --sandbox (the relay)"]) {
    test(`a result too large to pass into the sandbox fails the call with a line, through ${through}; the next call works`, async () => {
      const { dir, env } = project({ h: { command: BUN, args: [HOSTILE, "big"] } })
      // With --executor the config files are looked up from the current directory.
      const where = through === "the agent" ? ["-C", dir] : ["--executor", `${BUN} ${MAIN} executor -C ${dir} --sandbox workspace-write`]
      const script = `try { await mcp.h.big({ mib: 9 }) } catch (error) { console.log(error.message) }
console.log((await mcp.h.big({ mib: 1 })).length)`
      const result = await clanka(["exec", ...where, "-e", script], { env, cwd: dir, timeoutMs: 60_000 })
      expect(result).toEqual({ code: 0, stdout: "mcp.h.big: its result is too large to pass into the sandbox (9.0 MiB; a message holds at most 8 MiB)\n1048576\n", stderr: "" })
    })
  }

  test("a result larger than the server's stream takes stops that server with a line saying so; up to 16 MiB the server survives", async () => {
    const { dir, env } = project({ h: { command: BUN, args: [HOSTILE, "big"] } })
    const script = `for (const mib of [12, 20, 1]) {
  try { console.log((await mcp.h.big({ mib })).length) } catch (error) { console.log(error.message) }
}`
    const result = await clanka(["exec", "-C", dir, "-e", script], { env, timeoutMs: 60_000 })
    expect(result).toEqual({
      code: 0,
      stdout: [
        "mcp.h.big: its result is too large to pass into the sandbox (12.0 MiB; a message holds at most 8 MiB)",
        'mcp.h.big: the MCP server "h" was stopped for sending a message over 16 MiB (a result too large to take) during the call',
        'mcp.h.big: the MCP server "h" is not running: it was stopped for sending a message over 16 MiB (a result too large to take)',
        "",
      ].join("\n"),
      stderr: "",
    })
  })

  test("a tools/list whose pages never end fails that server at 10,000 tools, not when memory runs out", async () => {
    const { dir, env } = project({ h: { command: BUN, args: [HOSTILE, "pages"], startupTimeoutSec: 60 } })
    const started = performance.now()
    const result = await clanka(["tools", "-C", dir], { env, timeoutMs: 60_000 })
    expect(result.stderr).toBe('clanka: MCP server "h" failed: lists more than 10000 tools (its tools/list pages do not end); its tools are missing\n')
    expect(performance.now() - started).toBeLessThan(20_000)
  })
})
