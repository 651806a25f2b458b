import { expect, test } from "bun:test"
import type { AgentEvent, ContentPart } from "../../src/agent/events.ts"
import { OutputLock } from "../../src/agent/output-lock.ts"

function wrapped(id: string, part: ContentPart): [string, AgentEvent, ContentPart] {
  return [id, { _tag: "SubagentPart", id, part }, part]
}

test("a second agent's events wait while the first is inside a block, then keep their order", () => {
  const seen: string[] = []
  const lock = new OutputLock((event) =>
    seen.push(event._tag === "SubagentPart" ? `${event.id}:${event.part._tag}${"delta" in event.part ? ` ${event.part.delta}` : ""}` : event._tag),
  )
  lock.emit(...wrapped("a", { _tag: "ReasoningStart" }))
  lock.emit(...wrapped("a", { _tag: "ReasoningDelta", delta: "a1" }))
  lock.emit(...wrapped("b", { _tag: "ScriptStart" }))
  lock.emit(...wrapped("b", { _tag: "ScriptDelta", delta: "b1" }))
  lock.emit(...wrapped("a", { _tag: "ReasoningDelta", delta: "a2" }))
  lock.emit(...wrapped("b", { _tag: "ScriptEnd" }))
  lock.emit(...wrapped("a", { _tag: "ReasoningEnd" }))
  lock.emit(...wrapped("a", { _tag: "ScriptStart" }))
  lock.emit(...wrapped("a", { _tag: "ScriptEnd" }))
  expect(seen).toEqual([
    "a:ReasoningStart",
    "a:ReasoningDelta a1",
    "a:ReasoningDelta a2",
    "a:ReasoningEnd",
    "b:ScriptStart",
    "b:ScriptDelta b1",
    "b:ScriptEnd",
    "a:ScriptStart",
    "a:ScriptEnd",
  ])
})

test("release frees the lock of an agent that stopped inside a block; flush loses nothing", () => {
  const seen: string[] = []
  const lock = new OutputLock((event) => seen.push(event._tag === "SubagentPart" ? `${event.id}:${event.part._tag}` : event._tag))
  lock.emit(...wrapped("a", { _tag: "ScriptStart" }))
  lock.emit(...wrapped("b", { _tag: "ReasoningStart" }))
  lock.release("a")
  lock.emit(...wrapped("a", { _tag: "ScriptStart" }))
  expect(seen).toEqual(["a:ScriptStart", "b:ReasoningStart"])
  lock.flush()
  expect(seen).toEqual(["a:ScriptStart", "b:ReasoningStart", "a:ScriptStart"])
})
