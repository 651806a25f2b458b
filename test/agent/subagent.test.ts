import { afterEach, expect, test } from "bun:test"
import type { AgentEvent } from "../../src/agent/events.ts"
import { fromSubagent, type FakeRequest, type FakeTurn } from "../support/fake-model.ts"
import { brief, rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

/** Answers by who is asking: the parent, or the sub-agent working on "task A" / "task B". */
function dispatch(request: FakeRequest): FakeTurn {
  const sub = fromSubagent(request)
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
      `ScriptOutputDelta "${name} works\\n"`,
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
  const subRequest = r.server.requests.find((request) => fromSubagent(request))!
  expect(subRequest.system).toContain("do not call delegate")
  expect(subRequest.body.model).toBe("claude-haiku-4-5")
  // Total usage includes the sub-agents' tokens: 2 parent + 4 sub-agent responses of 10 input each.
  expect((events.at(-1) as { usage: { inputTokens: number } }).usage.inputTokens).toBe(60)
})

test("with maxDepth 2 a sub-agent delegates: the grandchild's SubagentStart/Part/Complete pass through unwrapped", async () => {
  const turn = (request: FakeRequest): FakeTurn => {
    const result = request.toolResults[0]?.trim()
    if (request.lastUserText === "grandchild task") return { blocks: [{ type: "execute", script: 'taskComplete("grandchild done")' }] }
    const next = request.lastUserText === "child task" ? "grandchild task" : "child task"
    const prefix = request.lastUserText === "child task" ? "child got " : ""
    if (result === undefined) return { blocks: [{ type: "execute", script: `console.log(await delegate(${JSON.stringify(next)}))` }] }
    return { blocks: [{ type: "execute", script: `taskComplete(${JSON.stringify(prefix + result)})` }] }
  }
  current = await rig("anthropic", Array.from({ length: 5 }, () => turn), { maxDepth: 2 })
  const events = await current.run("top task")
  const root = (events[0] as { id: string }).id
  const child = `${root}.1`
  // Ids are unique within the run and carry their parent's id as a prefix.
  const grandchild = (events.find((event) => event._tag === "SubagentStart" && event.prompt === "grandchild task") as { id: string }).id
  expect(grandchild.startsWith(`${child}.`)).toBe(true)
  const lines = events.map(brief).filter((line) => !line.includes("ScriptDelta"))
  const script = (tag: string, output: string) => [`${tag}ScriptStart`, `${tag}ScriptEnd`, `${tag}Usage`, `${tag}ScriptOutput ${JSON.stringify(output)}`]
  expect(lines).toEqual([
    "AgentStart",
    "ScriptStart",
    "ScriptEnd",
    "Usage",
    `SubagentStart ${child} "child task"`,
    `[${child}] ScriptStart`,
    `[${child}] ScriptEnd`,
    `[${child}] Usage`,
    `SubagentStart ${grandchild} "grandchild task"`,
    ...script(`[${grandchild}] `, "(no output)"),
    `SubagentComplete ${grandchild} "grandchild done"`,
    `[${child}] ScriptOutputDelta "grandchild done\\n"`,
    `[${child}] ScriptOutput "grandchild done\\n"`,
    ...script(`[${child}] `, "(no output)"),
    `SubagentComplete ${child} "child got grandchild done"`,
    'ScriptOutputDelta "child got grandchild done\\n"',
    'ScriptOutput "child got grandchild done\\n"',
    ...script("", "(no output)"),
    'AgentFinished "child got grandchild done" turns=2',
  ])
  // Unwrapped: no SubagentPart carries another sub-agent's events or an AgentStart.
  const wrapped = events.flatMap((event) => (event._tag === "SubagentPart" ? [event.part._tag as string] : []))
  expect(wrapped.filter((tag) => tag.startsWith("Subagent") || tag.startsWith("Agent"))).toEqual([])
  // The grandchild got the sub-agent prompt too.
  const grandRequest = current.server.requests.find((request) => request.lastUserText === "grandchild task")!
  expect(grandRequest.system).toContain("do not call delegate")
})

test("a model that always delegates: by default its sub-agents cannot, and the parent sees why", async () => {
  // Every agent, whatever it is asked, delegates once and reports what came back.
  const turn = (request: FakeRequest): FakeTurn => {
    const result = request.toolResults[0]?.trim()
    if (result === undefined) return { blocks: [{ type: "execute", script: `console.log(await delegate("deeper"))` }] }
    return { blocks: [{ type: "execute", script: `taskComplete(${JSON.stringify(result)})` }] }
  }
  current = await rig("anthropic", Array.from({ length: 4 }, () => turn))
  const events = await current.run("top task")
  expect(events.filter((event) => event._tag === "SubagentStart")).toHaveLength(1)
  const child = events.find((event) => event._tag === "SubagentComplete") as { summary: string }
  // The child's script failed at its delegate(); the child passed that on as its summary.
  expect(child.summary).toContain("The script failed: Error: delegate: sub-agents nest at most 1 deep (--max-depth 1); do the task in this agent")
  expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished" })
})

test("maxDepth 0: no sub-agents at all; maxSubagents caps those running at once", async () => {
  current = await rig("anthropic", [{ blocks: [{ type: "execute", script: 'await delegate("x")' }] }, { blocks: [{ type: "execute", script: 'taskComplete("ok")' }] }], { maxDepth: 0 })
  let events = await current.run("top task")
  expect((events.find((event) => event._tag === "ScriptOutput") as { output: string }).output).toContain(
    "delegate: this run has no sub-agents (--max-depth 0); do the task in this agent",
  )
  await current.close()
  const parent = 'const results = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => delegate("task " + n)))\nfor (const r of results) console.log(r.status, r.value ?? r.reason.message)'
  const answer = (request: FakeRequest): FakeTurn => {
    if (!fromSubagent(request)) {
      return request.toolResults.length === 0
        ? { blocks: [{ type: "execute", script: parent }] }
        : { blocks: [{ type: "execute", script: `taskComplete("done")` }] }
    }
    return { blocks: [{ type: "execute", script: `taskComplete("did " + ${JSON.stringify(request.lastUserText)})` }], delayMs: 50 }
  }
  current = await rig("anthropic", Array.from({ length: 5 }, () => answer), { maxSubagents: 2 })
  events = await current.run("top task")
  const output = (events.find((event) => event._tag === "ScriptOutput") as { output: string }).output
  expect(output).toBe(
    [
      "fulfilled did task 1",
      "fulfilled did task 2",
      ...[3, 4, 5].map(() => "rejected delegate: 2 sub-agents are already running, the most at once; wait for one to finish"),
      "",
    ].join("\n"),
  )
})

async function setup(): Promise<Rig> {
  const turns = Array.from({ length: 6 }, () => dispatch)
  current = await rig("anthropic", turns, { subagentModelId: "claude-haiku-4-5" })
  return current
}

test("interrupted while two sub-agents work: each reports its end before the run's AgentError", async () => {
  const parentScript = 'await Promise.all([delegate("task A"), delegate("task B")])'
  const answer = (request: FakeRequest): FakeTurn =>
    fromSubagent(request)
      ? { blocks: [{ type: "execute", script: "await sleep(10000)" }] }
      : { blocks: [{ type: "execute", script: parentScript }] }
  current = await rig("anthropic", [answer, answer, answer])
  const abort = new AbortController()
  const events: AgentEvent[] = []
  let subScripts = 0
  for await (const event of current.agent.send("go", { signal: abort.signal })) {
    events.push(event)
    if (event._tag === "SubagentPart" && event.part._tag === "ScriptEnd" && ++subScripts === 2) abort.abort()
  }
  const tail = events.filter((event) => event._tag === "SubagentComplete" || event._tag === "AgentError")
  expect(tail.map((event) => event._tag)).toEqual(["SubagentComplete", "SubagentComplete", "AgentError"])
  expect(tail.at(-1)).toMatchObject({ message: "interrupted", exitCode: 130 })
  expect(events.at(-1)!._tag).toBe("AgentError")
})

test("a sub-agent a finished script did not wait for is stopped and reports its end before AgentFinished", async () => {
  const answer = (request: FakeRequest): FakeTurn =>
    fromSubagent(request)
      ? { blocks: [{ type: "execute", script: "await sleep(10000)" }] }
      : { blocks: [{ type: "execute", script: 'delegate("background task"); await sleep(300); await taskComplete("done")' }] }
  current = await rig("anthropic", [answer, answer])
  const started = Date.now()
  const events = await current.run("go")
  expect(Date.now() - started).toBeLessThan(5000)
  const tail = events.filter((event) => event._tag === "SubagentComplete" || event._tag === "AgentFinished")
  expect(tail.map((event) => event._tag)).toEqual(["SubagentComplete", "AgentFinished"])
  expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "done" })
})
