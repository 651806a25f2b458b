// Hooks in the agent (library level): a sub-agent's scripts pass the same preExecute policy, and
// sessionStart runs once however many prompts the agent is sent.
import { afterEach, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { createHooks } from "../../src/agent/hooks.ts"
import { fromSubagent, type FakeRequest, type FakeTurn } from "../support/fake-model.ts"
import { brief, rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

const finish = (summary: string): FakeTurn => ({ blocks: [{ type: "execute", script: `await taskComplete(${JSON.stringify(summary)})` }] })

test("a sub-agent's script is blocked by the same preExecute hook; its Hook event comes wrapped", async () => {
  const policy = 'grep -q writeFile && { echo "read-only review" >&2; exit 2; }; exit 0'
  const turn = (request: FakeRequest): FakeTurn => {
    if (fromSubagent(request)) {
      if (request.toolResults.length === 0) return { blocks: [{ type: "execute", script: 'await writeFile({ path: "sub.txt", content: "x" })' }] }
      return finish(`sub saw: ${request.toolResults[0]}`)
    }
    if (request.toolResults.length === 0) return { blocks: [{ type: "execute", script: 'console.log(await delegate("review"))' }] }
    return finish("reviewed")
  }
  current = await rig("anthropic", Array.from({ length: 4 }, () => turn), { hooks: createHooks({ preExecute: [policy] }, { cwd: "/" }) })
  const events = await current.run("go")
  const sub = (events.find((event) => event._tag === "SubagentStart") as { id: string }).id
  const lines = events.map(brief).filter((line) => line.includes("Hook") || line.includes("ScriptOutput ") || line.startsWith("Agent"))
  expect(lines).toEqual([
    "AgentStart",
    "Hook preExecute 0",
    `[${sub}] Hook preExecute 2 blocked`,
    `[${sub}] ScriptOutput "[blocked by a hook] read-only review"`,
    `[${sub}] Hook preExecute 0`,
    `[${sub}] ScriptOutput "(no output)"`,
    'ScriptOutput "sub saw: [blocked by a hook] read-only review\\n"',
    "Hook preExecute 0",
    'ScriptOutput "(no output)"',
    'AgentFinished "reviewed" turns=2',
  ])
  expect(existsSync(join(current.directory, "sub.txt"))).toBe(false)
})

test("sessionStart runs once for the agent; stop after every run", async () => {
  current = await rig("anthropic", [finish("one"), finish("two")], { hooks: createHooks({ sessionStart: ["true"], stop: ["true"] }, { cwd: "/" }) })
  const first = (await current.run("a")).map(brief)
  const second = (await current.run("b")).map(brief)
  expect(first.filter((line) => line.startsWith("Hook"))).toEqual(["Hook sessionStart 0", "Hook stop 0"])
  expect(second.filter((line) => line.startsWith("Hook"))).toEqual(["Hook stop 0"])
  expect(second.at(-2)).toBe("Hook stop 0")
})
