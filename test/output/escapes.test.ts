import { expect, test } from "bun:test"
import type { AgentEvent } from "../../src/agent/events.ts"
import { render } from "./render.ts"

const usage = { contextTokens: 10, contextWindow: null, inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: null }

/** Everything a repository file, a script or a model can put in front of the user's terminal. */
const hostile: AgentEvent[] = [
  { _tag: "AgentStart", id: "a1", prompt: "p", provider: "anthropic", model: "m", sessionId: "s", directory: "/repo\x1b[2J", tools: [], sandbox: { mode: "off", network: true } },
  { _tag: "ReasoningStart" },
  { _tag: "ReasoningDelta", delta: "progress\rOVERWRITTEN\u001b[2J\u001b]0;pwned title\u0007 ok" },
  { _tag: "ReasoningEnd" },
  { _tag: "ScriptStart" },
  { _tag: "ScriptDelta", delta: 'console.log("\x1b[1A")\r\n\x08x' },
  { _tag: "ScriptEnd" },
  { _tag: "ScriptOutput", output: "a\rb\u001b[1A\u001b[2Kc\nwin\r\nline\x7f\x9b31m\n" },
  { _tag: "SubagentStart", id: "a1.1", prompt: "look \x1b]52;c;aGk=\x07 here", provider: "anthropic", model: "m" },
  { _tag: "SubagentPart", id: "a1.1", part: { _tag: "ErrorRetry", error: { message: "overloaded\x1b[31m", retryable: true } } },
  { _tag: "SubagentComplete", id: "a1.1", summary: "done\x1bc" },
  { _tag: "StructuredOutput", value: { text: "x\x9b2Jy\x85" } },
  { _tag: "AgentFinished", summary: "final\x1b[2K\x00 answer", durationMs: 5, turns: 1, usage },
]

const shown = [
  "● anthropic/m in /repo^[[2J (no sandbox)",
  "progress^MOVERWRITTEN^[[2J^[]0;pwned title^G ok",
  "▸ execute",
  '│ console.log("^[[1A")',
  "│ ^Hx",
  "  a^Mb^[[1A^[[2Kc",
  "  win",
  "  line^?M-^[31m",
  "⤷ sub-agent a1.1 (anthropic/m): look ^[]52;c;aGk=^G here",
  "[a1.1] ⚠ overloaded^[[31m; retrying",
  "⤶ sub-agent a1.1 done: done^[c",
  "{",
  '  "text": "xM-^[2JyM-^E"',
  "}",
  "✓ done in 5 ms, 1 turn",
  "final^[[2K^@ answer",
  "",
].join("\n")

test("pretty: control characters from the model and scripts are shown in caret notation, never sent raw", () => {
  const { stdout } = render("pretty", hostile)
  expect(stdout).toBe(shown)
})

test("pretty with colour: the only escape sequences written are picocolors' own", () => {
  const { stdout } = render("pretty", hostile, {})
  expect(stdout).toContain("\x1b[36m▸ execute\x1b[39m")
  const withoutColours = stdout.replace(/\x1b\[\d+m/g, "")
  expect(withoutColours).toBe(shown)
  expect(stdout.replace(/\x1b\[\d+m/g, "")).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/)
})

test("text: progress on stderr is made harmless; the summary on stdout stays raw data for pipes", () => {
  const { stdout, stderr } = render("text", hostile.filter((event) => event._tag !== "StructuredOutput"))
  expect(stderr).toBe(shown.replace('{\n  "text": "xM-^[2JyM-^E"\n}\n', "").replace("final^[[2K^@ answer\n", ""))
  expect(stdout).toBe("final\x1b[2K\x00 answer\n")
  // With --json-schema the JSON on stdout is data too: JSON.stringify leaves 0x7f–0x9f as they are.
  expect(render("text", hostile).stdout).toBe('{\n  "text": "x\x9b2Jy\x85"\n}\n')
})
