// How a running script's output (ScriptOutputDelta) is shown: on a terminal, a live tail with the
// elapsed time at the bottom, replaced by the final output; elsewhere (text mode's progress, pretty
// into a pipe) its lines as they come, and the final output does not repeat them.
import { expect, test } from "bun:test"
import type { AgentEvent } from "../../src/agent/events.ts"
import { LiveOutput } from "../../src/agent/live-output.ts"
import { prettyFormatter } from "../../src/output/pretty.ts"
import { render } from "./render.ts"

const USAGE: AgentEvent = {
  _tag: "Usage",
  contextTokens: 10,
  contextWindow: null,
  inputTokens: 10,
  outputTokens: 5,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: null,
  durationMs: 5,
}
const turn = (script: string): AgentEvent[] => [{ _tag: "ScriptStart" }, { _tag: "ScriptDelta", delta: script }, { _tag: "ScriptEnd" }, USAGE]
const delta = (text: string): AgentEvent => ({ _tag: "ScriptOutputDelta", id: "call_1", text })

test("text mode: the lines show as they are printed; the final output adds only what is new", () => {
  const progress: string[] = []
  let stderr = ""
  const print = (event: AgentEvent) => {
    print.inner(event)
    progress.push(stderr)
  }
  print.inner = prettyFormatter({ write: (s: string) => (stderr += s) }, { color: false, summary: false })
  for (const event of turn("run()")) print(event)
  const before = stderr
  print(delta("one\ntw"))
  expect(stderr.slice(before.length)).toBe("  one\n")
  print(delta("o\n"))
  expect(stderr.slice(before.length)).toBe("  one\n  two\n")
  // The script failed: its output has one more line than it printed.
  print({ _tag: "ScriptOutput", output: "one\ntwo\nThe script failed: boom" })
  expect(stderr.slice(before.length)).toBe("  one\n  two\n  The script failed: boom\n")
})

test("text mode: a long output shows its first 20 lines live and the count of the rest at the end", () => {
  const lines = Array.from({ length: 30 }, (_, i) => `l${i}`)
  const live = render("text", [...turn("x()"), ...lines.map((line) => delta(`${line}\n`)), { _tag: "ScriptOutput", output: lines.join("\n") + "\n" }])
  const whole = render("text", [...turn("x()"), { _tag: "ScriptOutput", output: lines.join("\n") + "\n" }])
  expect(live.stderr).toBe(whole.stderr)
  expect(live.stderr).toContain("  l19\n  … 10 more lines\n")
})

/** The screen after `raw`: applies the live region's "up N lines, clear to the end" codes. */
function screen(raw: string): string {
  const lines: string[] = [""]
  for (const piece of raw.split(/(\x1b\[\d+F\x1b\[J)/)) {
    const up = /^\x1b\[(\d+)F\x1b\[J$/.exec(piece)
    if (up) {
      lines.splice(lines.length - 1 - Number(up[1]))
      lines.push("")
      continue
    }
    const parts = piece.split("\n")
    lines[lines.length - 1] = `${lines.at(-1)!}${parts[0]!}`
    lines.push(...parts.slice(1))
  }
  return lines.join("\n")
}

test("on a terminal: the tail of a running script and its elapsed time, then the final output in their place", () => {
  let now = 0
  let raw = ""
  const print = prettyFormatter({ write: (s: string) => (raw += s), columns: 30 }, { color: false, live: true, now: () => now })
  const events = turn("x()")
  for (const event of events) print(event)
  // Nothing printed yet and under a second: no region.
  expect(screen(raw)).toBe("▸ execute\n│ x()\n10 in · 5 out · 5 ms\n")
  now = 1500
  print(delta("one\n"))
  expect(screen(raw)).toBe("▸ execute\n│ x()\n10 in · 5 out · 5 ms\n  ⋯ running 1 s\n  one\n")
  now = 2600
  print(delta(`two\nthree\nfour\nfive\nsix and a line longer than the terminal\n`))
  expect(screen(raw)).toBe(
    "▸ execute\n│ x()\n10 in · 5 out · 5 ms\n  ⋯ running 2 s\n  two\n  three\n  four\n  five\n  six and a line longer than…\n",
  )
  const output = "one\ntwo\nthree\nfour\nfive\nsix and a line longer than the terminal\n"
  print({ _tag: "ScriptOutput", output })
  print({ _tag: "AgentFinished", summary: "", durationMs: 3000, turns: 1, usage: USAGE })
  // The scrollback holds what it would without the live view.
  const plain = render("pretty", [...events, { _tag: "ScriptOutput", output }, { _tag: "AgentFinished", summary: "", durationMs: 3000, turns: 1, usage: USAGE }])
  expect(screen(raw)).toBe(plain.stdout)
})

test("on a terminal: other output goes above the region, which is drawn again below it", () => {
  let now = 0
  let raw = ""
  const print = prettyFormatter({ write: (s: string) => (raw += s), columns: 80 }, { color: false, live: true, now: () => now })
  for (const event of turn("delegate('t')")) print(event)
  now = 1200
  print(delta("waiting\n"))
  print({ _tag: "SubagentStart", id: "a.1", prompt: "t", provider: "p", model: "m" })
  expect(screen(raw)).toBe("▸ execute\n│ delegate('t')\n10 in · 5 out · 5 ms\n⤷ sub-agent a.1 (p/m): t\n  ⋯ running 1 s\n  waiting\n")
  // A sub-agent's half-written line is not overdrawn: the region waits for the line to end.
  print({ _tag: "SubagentPart", id: "a.1", part: { _tag: "ReasoningStart" } })
  print({ _tag: "SubagentPart", id: "a.1", part: { _tag: "ReasoningDelta", delta: "thinking" } })
  expect(screen(raw)).toEndWith("⤷ sub-agent a.1 (p/m): t\n[a.1] thinking")
  print({ _tag: "SubagentPart", id: "a.1", part: { _tag: "ReasoningEnd" } })
  expect(screen(raw)).toEndWith("[a.1] thinking\n  ⋯ running 1 s\n  waiting\n")
})

test("the live copy's budget counts UTF-8 bytes and never splits a character", () => {
  const live = new LiveOutput(10)
  expect(live.take("héllo")).toBe("héllo")
  expect(live.take(" wörld\n")).toBe(" wö\n[… live output stops here (over the output budget); ScriptOutput has the capped text]\n")
  expect(live.take("more\n")).toBe("")
})

test("live output is shown, never obeyed: escape sequences in it are printed in caret notation", () => {
  const escape = "\x1b[2J\x1b]0;title\x07cleared\r\n"
  const lines = render("text", [...turn("x()"), delta(escape)]).stderr
  expect(lines).toEndWith("  ^[[2J^[]0;title^Gcleared\n")
  let now = 0
  let raw = ""
  const print = prettyFormatter({ write: (s: string) => (raw += s), columns: 80 }, { color: false, live: true, now: () => now })
  for (const event of turn("x()")) print(event)
  now = 2000
  print(delta(escape))
  expect(raw.replaceAll(/\x1b\[\d+F\x1b\[J/g, "")).not.toContain("\x1b[2J")
  expect(screen(raw)).toEndWith("  ^[[2J^[]0;title^Gcleared\n")
})
