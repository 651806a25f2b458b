import { afterEach, expect, test } from "bun:test"
import type { AgentEvent } from "../../src/agent/events.ts"
import type { FakeRequest, FakeTurn } from "../support/fake-model.ts"
import { brief, rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

/** Answers by who is asking: the parent, or the sub-agent working on "task A" / "task B". */
function dispatch(request: FakeRequest): FakeTurn {
  const sub = request.system.includes("You are a sub-agent")
  const done = request.toolResults.length > 0
  if (!sub) {
    if (!done)
      return {
        blocks: [
          {
            type: "execute",
            script: 'const [a, b] = await Promise.all([delegate("task A"), delegate("task B")])\nconsole.log(a + " | " + b)',
          },
        ],
      }
    return { blocks: [{ type: "execute", script: `taskComplete(${JSON.stringify("parent saw " + request.toolResults[0]!.trim())})` }] }
  }
  const name = request.lastUserText === "task A" ? "A" : "B"
  if (!done)
    return {
      blocks: [
        { type: "reasoning", text: [`${name}1 `, `${name}2 `, `${name}3`] },
        { type: "execute", script: `console.log("${name} works")`, chunks: 4 },
      ],
      delayMs: 4,
    }
  return { blocks: [{ type: "execute", script: `taskComplete("summary ${name}")` }], delayMs: 4 }
}

test("two sub-agents at once: wrapped events, never interleaved inside a block, summaries back to the script", async () => {
  const r = await setup()
  const events = await r.run("split the work")
  const lines = events.map(brief)
  expect(lines.at(-1)).toBe('AgentFinished "parent saw summary A | summary B" turns=2')

  const starts = events.filter((event) => event._tag === "SubagentStart") as Extract<AgentEvent, { _tag: "SubagentStart" }>[]
  expect(starts.map((event) => event.prompt).sort()).toEqual(["task A", "task B"])
  const rootId = (events[0] as { id: string }).id
  for (const start of starts) {
    expect(start.id.startsWith(`${rootId}.`)).toBe(true)
    expect(start).toMatchObject({ provider: "anthropic", model: "claude-haiku-4-5" })
  }
  // Each sub-agent's own parts, in order, as one would see them alone.
  for (const start of starts) {
    const name = start.prompt === "task A" ? "A" : "B"
    const own = lines.filter((line) => line.startsWith(`[${start.id}]`)).map((line) => line.slice(start.id.length + 3))
    expect(own.filter((line) => !line.startsWith("ScriptDelta"))).toEqual([
      "ReasoningStart",
      `ReasoningDelta "${name}1 "`,
      `ReasoningDelta "${name}2 "`,
      `ReasoningDelta "${name}3"`,
      "ReasoningEnd",
      "ScriptStart",
      "ScriptEnd",
      "Usage",
      `ScriptOutput "${name} works\\n"`,
      "ScriptStart",
      "ScriptEnd",
      "Usage",
      'ScriptOutput "(no output)"',
    ])
    expect(lines).toContain(`SubagentComplete ${start.id} "summary ${name}"`)
  }
  // No interleaving inside a block: between a sub-agent's Start and End only its own parts.
  let owner: string | undefined
  for (const event of events) {
    if (event._tag !== "SubagentPart") {
      expect(owner).toBeUndefined()
      continue
    }
    if (owner !== undefined) expect(event.id).toBe(owner)
    if (event.part._tag === "ReasoningStart" || event.part._tag === "ScriptStart") owner = event.id
    if (event.part._tag === "ReasoningEnd" || event.part._tag === "ScriptEnd") owner = undefined
  }
  // Both ran at the same time: the second started before the first completed.
  const firstComplete = lines.findIndex((line) => line.startsWith("SubagentComplete"))
  expect(lines.filter((line, i) => line.startsWith("SubagentStart") && i < firstComplete).length).toBe(2)
  // The sub-agent's prompt discourages delegating again; the parent's does not mention it.
  const subRequest = r.server.requests.find((request) => request.system.includes("You are a sub-agent"))!
  expect(subRequest.system).toContain("do not call delegate")
  expect(subRequest.body.model).toBe("claude-haiku-4-5")
  // Total usage includes the sub-agents' tokens: 2 parent + 4 sub-agent responses of 10 input each.
  expect((events.at(-1) as { usage: { inputTokens: number } }).usage.inputTokens).toBe(60)
})

async function setup(): Promise<Rig> {
  const turns = Array.from({ length: 6 }, () => dispatch)
  current = await rig("anthropic", turns, { subagentModelId: "claude-haiku-4-5" })
  return current
}
