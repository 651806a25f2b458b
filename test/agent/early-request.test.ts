// An executor still starting (clanka run's local child) says what it will announce for the system
// prompt: the first model request goes out at once instead of waiting for it, and is used when
// the executor then announces exactly that; otherwise it is dropped and the request made again.
import { afterAll, expect, test } from "bun:test"
import { realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { createAgent } from "../../src/agent/agent.ts"
import type { AgentEvent } from "../../src/agent/events.ts"
import type { Capabilities, ExecuteOptions, Executor, PromptFacts } from "../../src/contract.ts"
import { localPromptFacts } from "../../src/executor/prompt-facts.ts"
import { resolveModel } from "../../src/providers/resolve.ts"
import { osSandboxWorks, resolveSandbox, type SandboxRequest } from "../../src/executor/os-sandbox.ts"
import { RawSession } from "../protocol/raw-session.ts"
import { buildSystemPrompt } from "../../src/agent/system-prompt.ts"
import { temporaryDirectory } from "../support/temp.ts"
import { startFakeModel } from "../support/fake-model.ts"
import { brief } from "./helpers.ts"

const server = await startFakeModel(
  "anthropic",
  Array.from({ length: 8 }, () => ({ blocks: [{ type: "execute" as const, script: 'await taskComplete("done")' }] })),
)
afterAll(() => server.close())

const facts: PromptFacts = {
  toolsDts: "declare function taskComplete(output: string): Promise<void>",
  agentsMd: "Use tabs.",
  instructionsFiles: [{ path: "/repo/AGENTS.md", text: "Use tabs." }],
  directory: "/repo",
  sandbox: { mode: "workspace-write", network: false },
}

/** An executor that answers its capabilities only once the test lets it. */
function startingExecutor(announced: PromptFacts): Executor & { answer(): void } {
  let answer!: () => void
  const answered = new Promise<void>((resolve) => (answer = resolve))
  return {
    answer,
    expectedPrompt: async () => facts,
    capabilities: async (): Promise<Capabilities> => {
      await answered
      return { ...announced, supportsSearch: false, sandbox: announced.sandbox ?? { mode: "off", network: true }, protocolVersion: 1, version: "test" }
    },
    async *execute(options: ExecuteOptions) {
      options.onTaskComplete("done")
    },
    executeUnsafe: async () => null,
    close: async () => {},
  }
}

async function run(executor: Executor): Promise<AgentEvent[]> {
  const agent = createAgent({ executor, model: resolveModel("anthropic/claude-sonnet-4-5", server.env) })
  const events: AgentEvent[] = []
  for await (const event of agent.send("say done")) events.push(event)
  return events
}

test("the first model request goes out before the executor has answered, and is the run's first turn", async () => {
  const executor = startingExecutor(facts)
  const events = run(executor)
  // The request arrives while the executor has still not answered its capabilities.
  for (let i = 0; i < 200 && server.requests.length === 0; i++) await Bun.sleep(10)
  expect(server.requests).toHaveLength(1)
  executor.answer()
  const done = await events
  expect(done.map(brief)).toEqual(["AgentStart", "ScriptStart", 'ScriptDelta "await taskComplete(\\"done\\")"', "ScriptEnd", "Usage", 'ScriptOutput "(no output)"', 'AgentFinished "done" turns=1'])
  expect(server.requests).toHaveLength(1)
  expect(server.requests[0]!.system).toContain("Use tabs.")
})

test("an executor that announces another sandbox than expected (bubblewrap failed): the early request is dropped and made again", async () => {
  const before = server.requests.length
  const executor = startingExecutor({ ...facts, sandbox: { mode: "off", network: true } })
  const events = run(executor)
  for (let i = 0; i < 200 && server.requests.length === before; i++) await Bun.sleep(10)
  executor.answer()
  const done = await events
  expect(done.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "done", turns: 1 })
  // One turn, two requests: the second tells the model the sandbox it really has.
  expect(server.requests).toHaveLength(before + 2)
  expect(server.requests.at(-2)!.system).toContain("Sandbox: workspace-write")
  expect(server.requests.at(-1)!.system).toContain("Sandbox: off")
  expect(done.filter((event) => event._tag === "ScriptStart")).toHaveLength(1)
})

test("an executor whose files or machine facts read a little differently: the early request stands, and its prompt is the run's", async () => {
  const before = server.requests.length
  const executor = startingExecutor({ ...facts, agentsMd: "Use spaces.", instructionsFiles: [{ path: "/repo/AGENTS.md", text: "Use spaces." }] })
  const events = run(executor)
  for (let i = 0; i < 200 && server.requests.length === before; i++) await Bun.sleep(10)
  executor.answer()
  expect((await events).at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "done", turns: 1 })
  expect(server.requests).toHaveLength(before + 1)
  expect(server.requests.at(-1)!.system).toContain("Use tabs.")
})

test("an executor that answers before the agent has read the files itself: no early request, one request", async () => {
  const before = server.requests.length
  const executor = startingExecutor(facts)
  // The agent's own reading is slow (a git status); the executor has answered meanwhile.
  executor.expectedPrompt = () => Bun.sleep(300).then(() => ({ ...facts, agentsMd: "late", instructionsFiles: [{ path: "/repo/AGENTS.md", text: "late" }] }))
  executor.answer()
  const done = await run(executor)
  expect(done.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "done", turns: 1 })
  await Bun.sleep(400)
  expect(server.requests).toHaveLength(before + 1)
  expect(server.requests.at(-1)!.system).toContain("Use tabs.")
})

test("what clanka run expects its local executor to announce makes the same system prompt as what it announces", async () => {
  const directory = realpathSync(temporaryDirectory("clanka-early-"))
  writeFileSync(join(directory, "AGENTS.md"), "Use tabs.\n")
  Bun.spawnSync(["git", "init", "-q", directory])
  writeFileSync(join(directory, "changed.txt"), "x\n")
  for (const sandbox of (osSandboxWorks() ? ["workspace-write", "off"] : ["off"]) as SandboxRequest[]) {
    // The sandbox connect() would choose for clanka run's child, and that child as a user starts it.
    const { policy } = await resolveSandbox(sandbox, false, [], { probe: false, backend: "auto" })
    const executor = new RawSession(directory, ["--sandbox", sandbox])
    try {
      const { result: announced } = await executor.call(1, "capabilities")
      const expected = await localPromptFacts(directory, true, policy)
      expect(buildSystemPrompt(expected)).toBe(buildSystemPrompt(announced))
      expect(buildSystemPrompt(expected)).toContain("Use tabs.")
      expect(buildSystemPrompt(expected)).toContain(`Sandbox: ${sandbox}`)
    } finally {
      await executor.close()
    }
  }
})
