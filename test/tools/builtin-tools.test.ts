import { expect, test } from "bun:test"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { BuiltinTools } from "../../src/tools/builtin-tools.ts"
import { builtinToolsFor } from "../../src/tools/registry.ts"
import { ToolRegistry } from "../../src/tools/tool-registry.ts"
import { ProcessRegistry } from "../../src/tools/processes.ts"
import { TodoStore } from "../../src/tools/todos.ts"
import { UNRESTRICTED, noSubagents } from "../../src/contract.ts"

test("the built-in tools' names and declarations without their modules are those of the tools themselves", () => {
  for (const search of [true, false]) {
    const registry = new ToolRegistry(builtinToolsFor({ search }))
    const builtin = new BuiltinTools(search)
    expect({ names: builtin.names, spread: builtin.spread, dts: builtin.dts }).toEqual({ names: registry.names, spread: registry.spread, dts: registry.dts })
    expect(builtin.has("search")).toBe(search)
    expect(builtin.has("readFile")).toBe(true)
    expect(builtin.has("nope")).toBe(false)
  }
})

test("a call loads the tools and runs one; an unknown tool and bad parameters fail as the registry's do", async () => {
  const directory = await mkdtemp(join(tmpdir(), "clanka-builtin-"))
  try {
    await writeFile(join(directory, "note.txt"), "hello\n")
    const ctx = {
      directory,
      policy: UNRESTRICTED,
      signal: new AbortController().signal,
      onTaskComplete() {},
      onSubagent: noSubagents,
      agentCall: async () => undefined,
      todos: new TodoStore(),
      processes: new ProcessRegistry(),
    }
    const tools = new BuiltinTools(true)
    expect(await tools.call("readFile", { path: "note.txt" }, ctx)).toBe("hello\n")
    await expect(tools.call("nope", {}, ctx)).rejects.toThrow('unknown tool "nope"')
    await expect(tools.call("readFile", 42, ctx)).rejects.toThrow("readFile: ")
    expect((await tools.tools()).map((tool) => tool.name)).toEqual([...tools.names])
  } finally {
    await rm(directory, { recursive: true, force: true })
  }
})

test("an executor with the built-in tools keeps them as agent-side MCP servers are added, one request after another", async () => {
  const { LocalExecutor } = await import("../../src/executor/local.ts")
  const directory = await mkdtemp(join(tmpdir(), "clanka-builtin-mcp-"))
  const executor = new LocalExecutor({ directory })
  try {
    const tool = (server: string) => ({ server, name: "ping", inputSchema: { type: "object", properties: {} } })
    const first = await executor.capabilities({ agentMcpTools: [tool("alpha")] })
    const second = await executor.capabilities({ agentMcpTools: [tool("beta")] })
    for (const caps of [first, second]) expect(caps.toolsDts).toContain("declare function readFile(")
    expect(second.toolsDts).toContain("alpha")
    expect(second.toolsDts).toContain("beta")
    expect(executor.tools.has("readFile")).toBe(true)
  } finally {
    await executor.close()
    await rm(directory, { recursive: true, force: true })
  }
})
