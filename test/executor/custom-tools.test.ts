// Executors are handed their tools: a library user's own tool reaches the sandbox, the model's
// declarations and the agent; `clanka tools` / `clanka tool` ask the executor they are given.
import { expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { builtinTools, createAgent, LocalExecutor, resolveModel, type AgentEvent } from "../../src/index.ts"
import { brief } from "../agent/helpers.ts"
import { BUN, clanka, ROOT } from "../support/cli.ts"
import { startFakeModel } from "../support/fake-model.ts"
import { shoutTool } from "../support/shout-tool.ts"
import { temporaryDirectory } from "../support/temp.ts"

const directory = temporaryDirectory("clanka-custom-tools-")
const shoutExecutor = `'${BUN}' '${join(ROOT, "test/support/shout-executor.ts")}' '${directory}'`

test("a model calls a library user's own tool through the agent", async () => {
  const server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: 'console.log(await shout({ text: "hello" }))\nawait taskComplete("shouted")' }] },
  ])
  const executor = new LocalExecutor({ directory, tools: [...builtinTools, shoutTool] })
  try {
    const agent = createAgent({ executor, model: resolveModel("anthropic/claude-sonnet-4-5", server.env) })
    const events: AgentEvent[] = []
    for await (const event of agent.send("shout hello")) events.push(event)
    expect((events[0] as { tools: string[] }).tools).toContain("shout")
    expect(events.map(brief).filter((line) => line.startsWith("ScriptOutput") || line.startsWith("Agent"))).toEqual([
      "AgentStart",
      'ScriptOutputDelta "HELLO\\n"',
      'ScriptOutput "HELLO\\n"',
      'AgentFinished "shouted" turns=1',
    ])
    expect(readFileSync(join(directory, "shout.txt"), "utf8")).toBe("HELLO")
    // The model was told about it, from its schema, like every built-in tool.
    expect(server.requests[0]!.system).toContain(
      "/** Upper-cases the text and writes it to shout.txt. */\ndeclare function shout(options: { /** what to shout */ text: string }): Promise<string>",
    )
  } finally {
    await executor.close()
    await server.close()
  }
})

test("an executor declares exactly the tools it was handed", async () => {
  const executor = new LocalExecutor({ directory, tools: [shoutTool] })
  try {
    const capabilities = await executor.capabilities()
    expect(capabilities.toolsDts).toContain("declare function shout(")
    expect(capabilities.toolsDts).not.toContain("declare function readFile(")
    let printed = ""
    for await (const text of executor.execute({
      script: "console.log(typeof shout, typeof readFile)",
      onTaskComplete: () => {},
      onSubagent: async () => "",
    })) {
      printed += text
    }
    expect(printed).toBe("function undefined\n")
  } finally {
    await executor.close()
  }
  expect(() => new LocalExecutor({ directory, tools: [shoutTool, shoutTool] })).toThrow('two tools are named "shout"')
})

test("clanka tools --executor prints that executor's declarations", async () => {
  const remote = await clanka(["tools", "--executor", shoutExecutor])
  expect(remote.code).toBe(0)
  expect(remote.stdout).toContain("declare function shout(options: { /** what to shout */ text: string }): Promise<string>")
  const local = await clanka(["tools"])
  expect(local.code).toBe(0)
  expect(local.stdout).not.toContain("declare function shout(")
  expect(local.stdout).toContain("declare function readFile(")
})

test("clanka tool --executor calls and validates against that executor's tools", async () => {
  const called = await clanka(["tool", "--executor", shoutExecutor, "shout", '{"text":"hi"}'])
  expect(called).toEqual({ code: 0, stdout: '"HI"\n', stderr: "" })

  const invalid = await clanka(["tool", "--executor", shoutExecutor, "shout", '{"txt":"hi"}'])
  expect(invalid.code).toBe(2)
  expect(invalid.stderr).toStartWith("clanka: shout: invalid parameters: text: Invalid key")

  const local = await clanka(["tool", "-C", directory, "shout", '{"text":"hi"}'])
  expect(local.code).toBe(2)
  expect(local.stderr).toStartWith('clanka: unknown tool "shout"; tools: readFile, writeFile')
})
