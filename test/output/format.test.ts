import { expect, test } from "bun:test"
import type { AgentEvent } from "../../src/agent/events.ts"
import { render } from "./render.ts"

const usage = { contextTokens: 1500, contextWindow: 200_000, inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.0081 }
const events: AgentEvent[] = [
  { _tag: "AgentStart", id: "a1", prompt: "count", provider: "anthropic", model: "claude-sonnet-4-5", sessionId: "s", directory: "/repo", tools: ["readFile"], sandbox: { mode: "workspace-write", network: false } },
  { _tag: "ReasoningStart" },
  { _tag: "ReasoningDelta", delta: "Let me " },
  { _tag: "ReasoningDelta", delta: "count." },
  { _tag: "ReasoningEnd" },
  { _tag: "ScriptStart" },
  { _tag: "ScriptDelta", delta: "const n = 1\ncon" },
  { _tag: "ScriptDelta", delta: "sole.log(n)" },
  { _tag: "ScriptEnd" },
  { _tag: "Usage", ...usage, durationMs: 1234 },
  { _tag: "ScriptOutput", output: Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join("\n") + "\n" },
  { _tag: "SubagentStart", id: "a1.1", prompt: "check tests", provider: "anthropic", model: "claude-haiku-4-5" },
  { _tag: "SubagentPart", id: "a1.1", part: { _tag: "ReasoningStart" } },
  { _tag: "SubagentPart", id: "a1.1", part: { _tag: "ReasoningDelta", delta: "ok\nfine" } },
  { _tag: "SubagentPart", id: "a1.1", part: { _tag: "ReasoningEnd" } },
  { _tag: "SubagentComplete", id: "a1.1", summary: "tests pass" },
  { _tag: "ErrorRetry", error: { message: "Anthropic API error 529 (overloaded_error): Overloaded", retryable: true, status: 529 } },
  { _tag: "AgentFinished", summary: "Counted 25 lines.", durationMs: 2500, turns: 2, usage },
]

test("ndjson: exactly one JSON line per event and nothing else", () => {
  const { stdout, stderr } = render("ndjson", events)
  expect(stdout.trimEnd().split("\n").map((line) => JSON.parse(line))).toEqual(events)
  expect(stderr).toBe("")
})

const prettyText = [
  "● anthropic/claude-sonnet-4-5 in /repo (sandbox: workspace-write, no network)",
  "Let me count.",
  "▸ execute",
  "│ const n = 1",
  "│ console.log(n)",
  "1.2k in · 300 out · context 1% · $0.0081 · 1.2 s",
  ...Array.from({ length: 20 }, (_, i) => `  line ${i + 1}`),
  "  … 5 more lines",
  "⤷ sub-agent a1.1 (anthropic/claude-haiku-4-5): check tests",
  "[a1.1] ok",
  "[a1.1] fine",
  "⤶ sub-agent a1.1 done: tests pass",
  "⚠ Anthropic API error 529 (overloaded_error): Overloaded; retrying",
  "✓ done in 2.5 s, 2 turns, $0.0081",
  "Counted 25 lines.",
  "",
].join("\n")

test("pretty without colour (NO_COLOR): scripts in a gutter, long output cut with a line count, usage and cost", () => {
  const { stdout, stderr } = render("pretty", events)
  expect(stdout).toBe(prettyText)
  expect(stderr).toBe("")
})

test("pretty colours on a terminal unless NO_COLOR is set", () => {
  expect(render("pretty", events, {}).stdout).toContain("\x1b[36m▸ execute\x1b[39m")
  expect(render("pretty", events, { NO_COLOR: "1" }).stdout).not.toContain("\x1b[")
})

test("text: only the summary on stdout, progress on stderr", () => {
  const { stdout, stderr } = render("text", events)
  expect(stdout).toBe("Counted 25 lines.\n")
  expect(stderr).toBe(prettyText.replace("Counted 25 lines.\n", ""))
})

test("text with --json-schema: the JSON alone on stdout", () => {
  const list: AgentEvent[] = [
    { _tag: "StructuredOutput", value: { files: ["a.ts"] } },
    { _tag: "AgentFinished", summary: '{"files":["a.ts"]}', durationMs: 5, turns: 1, usage },
  ]
  expect(JSON.parse(render("text", list).stdout)).toEqual({ files: ["a.ts"] })
})

test("pretty does not repeat a summary that is the answer just streamed", () => {
  const list: AgentEvent[] = [
    { _tag: "ReasoningStart" },
    { _tag: "ReasoningDelta", delta: "It is 42." },
    { _tag: "ReasoningEnd" },
    { _tag: "AgentFinished", summary: "It is 42.", durationMs: 8, turns: 1, usage: { ...usage, costUsd: null } },
  ]
  expect(render("pretty", list).stdout).toBe("It is 42.\n✓ done in 8 ms, 1 turn\n")
})

test("pretty's first line names the session a resumed or forked run took up", () => {
  const start = events[0] as AgentEvent & { _tag: "AgentStart" }
  const resumed: AgentEvent = { ...start, sessionId: "1a2b3c4d-0000-4000-8000-000000000000", resumedFrom: "1a2b3c4d-0000-4000-8000-000000000000" }
  const forked: AgentEvent = { ...start, sessionId: "9f9f9f9f-0000-4000-8000-000000000000", resumedFrom: "1a2b3c4d-0000-4000-8000-000000000000" }
  const line = "● anthropic/claude-sonnet-4-5 in /repo (sandbox: workspace-write, no network)"
  expect(render("pretty", [resumed]).stdout).toBe(`${line} · goes on from session 1a2b3c4d\n`)
  expect(render("pretty", [forked]).stdout).toBe(`${line} · forked from session 1a2b3c4d\n`)
  expect(render("pretty", [{ ...start, resumedFrom: null }]).stdout).toBe(`${line}\n`)
})

test("pretty names the Landlock sandbox in the first line (bubblewrap, the usual one, is not named)", () => {
  const start = (backend: "bwrap" | "landlock"): AgentEvent => ({ ...(events[0] as AgentEvent & { _tag: "AgentStart" }), sandbox: { mode: "workspace-write", network: false, backend } })
  expect(render("pretty", [start("landlock")]).stdout).toBe("● anthropic/claude-sonnet-4-5 in /repo (sandbox: workspace-write, no network, Landlock)\n")
  expect(render("pretty", [start("bwrap")]).stdout).toBe("● anthropic/claude-sonnet-4-5 in /repo (sandbox: workspace-write, no network)\n")
})
