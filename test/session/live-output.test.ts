// A running script's live output in a session: the top-level agent's is saved once, as `output`
// lines (replayed as ScriptOutputDelta); a sub-agent's as events, redacted across deltas.
import { expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { AgentEvent } from "../../src/agent/events.ts"
import { SessionRecorder } from "../../src/session/recorder.ts"
import { temporaryDirectory } from "../support/temp.ts"

const SECRET = "s3cr3t-value-123456"

test("a sub-agent's live output is saved as events, a secret split over two deltas redacted", () => {
  const home = temporaryDirectory("clanka-live-session-")
  const recorder = SessionRecorder.create({
    env: { CLANKA_HOME: home, MY_API_KEY: SECRET },
    cwd: home,
    executor: { kind: "local" },
    model: "anthropic/claude-sonnet-4-5",
  })
  const sub = (part: object): AgentEvent => ({ _tag: "SubagentPart", id: "a.1", part }) as AgentEvent
  const events: AgentEvent[] = [
    { _tag: "AgentStart", id: "a", prompt: "p", provider: "anthropic", model: "m", sessionId: recorder.id, directory: home, tools: [], sandbox: { mode: "off", network: false } },
    { _tag: "ScriptOutputDelta", id: "call_top", text: "top line\n" },
    sub({ _tag: "ScriptOutputDelta", id: "call_sub", text: `key ${SECRET.slice(0, 6)}` }),
    sub({ _tag: "ScriptOutputDelta", id: "call_sub", text: `${SECRET.slice(6)} ok\nand then` }),
    sub({ _tag: "ScriptOutput", output: "whatever\n" }),
  ]
  for (const event of events) recorder.event(event)
  recorder.output("call_top", "top line\n")
  recorder.close()
  const lines = readFileSync(join(home, "sessions", `${recorder.id}.jsonl`), "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
  const saved = lines.filter((line) => line.type === "event").map((line) => line.event)
  expect(saved.slice(1)).toEqual([
    sub({ _tag: "ScriptOutputDelta", id: "call_sub", text: "key " }),
    sub({ _tag: "ScriptOutputDelta", id: "call_sub", text: "[redacted] ok\nand then" }),
    sub({ _tag: "ScriptOutput", output: "whatever\n" }),
  ])
  expect(lines.filter((line) => line.type === "output")).toEqual([{ type: "output", call: "call_top", text: "top line\n" }])
  expect(readFileSync(join(home, "sessions", `${recorder.id}.jsonl`), "utf8")).not.toContain(SECRET.slice(0, 6) + SECRET.slice(6))
})
