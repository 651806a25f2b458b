// The wire: a capabilities request names the MCP servers a `clanka executor` starts; the
// executor checks them like any params, and its tools are then reachable through executeUnsafe.
import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { RawSession } from "../protocol/raw-session.ts"
import { osSandboxWorks } from "../../src/executor/os-sandbox.ts"
import { everythingStdio } from "../support/mcp-everything.ts"
import { temporaryDirectory } from "../support/temp.ts"

setDefaultTimeout(90_000)
const dir = temporaryDirectory("clanka-mcp-wire-")

describe("capabilities with mcpServers", () => {
  test("starts them once; failures are in mcpFailures; bad params are -32602", async () => {
    const session = new RawSession(dir)
    try {
      const bad = await session.call(1, "capabilities", { mcpServers: { x: { command: 3 } } })
      expect(bad.error).toMatchObject({ code: -32602 })
      const plain = await session.call(2, "capabilities")
      expect(plain.result.mcpFailures).toBeUndefined()
      expect(plain.result.toolsDts).not.toContain("mcp")
      const caps = await session.call(3, "capabilities", { mcpServers: { everything: everythingStdio, gone: { command: "false" } } })
      expect(caps.result.mcpFailures).toEqual([{ server: "gone", error: "exited before it was ready" }])
      expect(caps.result.toolsDts).toContain("declare const mcp: {")
      // Later requests get the same tools, whatever they name.
      const again = await session.call(4, "capabilities", { mcpServers: {} })
      expect(again.result.toolsDts).toBe(caps.result.toolsDts)
      const sum = await session.call(5, "executeUnsafe", { tool: "mcp.everything.get_sum", params: { a: 1, b: 2 } })
      expect(sum.result).toBe("The sum of 1 and 2 is 3.")
      const invalid = await session.call(6, "executeUnsafe", { tool: "mcp.everything.get_sum", params: { a: 1 } })
      expect(invalid.error).toMatchObject({ code: -32602, message: 'mcp.everything.get_sum: invalid parameters: args: missing required property "b"' })
    } finally {
      await session.close()
    }
  })
})

const sandboxed = osSandboxWorks()
if (!sandboxed && process.env.CI) throw new Error("bwrap is missing or cannot create namespaces; .ci/run installs bubblewrap")

describe.skipIf(!sandboxed)("capabilities with mcpServers to clanka executor --sandbox", () => {
  test("the servers start beside the sandbox: their tools work, their env is not in the executor's /proc", async () => {
    const session = new RawSession(dir, ["--sandbox", "workspace-write"])
    try {
      const bad = await session.call(1, "capabilities", { mcpServers: { x: { command: 3 } } })
      expect(bad.error).toMatchObject({ code: -32602 })
      const caps = await session.call(2, "capabilities", { mcpServers: { everything: { ...everythingStdio, env: { SERVER_TOKEN: `wire-secret-${process.pid}` } }, gone: { command: "false" } } })
      expect(caps.result.mcpFailures).toEqual([{ server: "gone", error: "exited before it was ready" }])
      expect(caps.result.toolsDts).toContain("declare const mcp: {")
      const sum = await session.call(3, "executeUnsafe", { tool: "mcp.everything.get_sum", params: { a: 1, b: 2 } })
      expect(sum.result).toBe("The sum of 1 and 2 is 3.")
      const invalid = await session.call(4, "executeUnsafe", { tool: "mcp.everything.get_sum", params: { a: 1 } })
      expect(invalid.error).toMatchObject({ code: -32602, message: 'mcp.everything.get_sum: invalid parameters: args: missing required property "b"' })
      const environ = await session.call(5, "executeUnsafe", { tool: "bash", params: { command: "cat /proc/*/environ | tr '\\0' '\\n' | grep -c SERVER_TOKEN; true" } })
      // No process the executor's tools can see holds the server's environment.
      expect(environ.result).toBe("0\n")
    } finally {
      await session.close()
    }
  })
})
