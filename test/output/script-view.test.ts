import { expect, test } from "bun:test"
import type { AgentEvent, ContentPart } from "../../src/agent/events.ts"
import { createFormatter } from "../../src/output/format.ts"

function pretty(list: AgentEvent[]): string {
  let stdout = ""
  const print = createFormatter("pretty", {
    stdout: { write: (s: string) => (stdout += s), isTTY: true },
    stderr: { write: () => undefined, isTTY: true },
    env: { NO_COLOR: "1" },
  })
  for (const event of list) print(event)
  return stdout
}

/** A script streamed in pieces of `size` characters, as the model writes it. */
function script(text: string, size: number, output = "ok\n"): ContentPart[] {
  const deltas: ContentPart[] = []
  for (let i = 0; i < text.length; i += size) deltas.push({ _tag: "ScriptDelta", delta: text.slice(i, i + size) })
  return [{ _tag: "ScriptStart" }, ...deltas, { _tag: "ScriptEnd" }, { _tag: "ScriptOutput", output }]
}

test("a 1 MB one-line script shows its first 300 characters, not a megabyte", () => {
  const line = `const s = "${"x".repeat(1024 * 1024)}"`
  const stdout = pretty(script(line, 4096))
  expect(stdout).toBe(`▸ execute\n│ ${line.slice(0, 300)}…\n  ok\n`)
})

test("a long script shows 40 lines, then how many more there were", () => {
  const lines = Array.from({ length: 100 }, (_, i) => `console.log(${i + 1})`)
  const expected = [
    "▸ execute",
    ...lines.slice(0, 40).map((line) => `│ ${line}`),
    "│ … 60 more lines",
    "  ok",
    "",
  ].join("\n")
  // However the deltas fall, with or without a final newline.
  expect(pretty(script(lines.join("\n"), 7))).toBe(expected)
  expect(pretty(script(lines.join("\n") + "\n", 1))).toBe(expected)
  expect(pretty(script(lines.join("\n"), 100_000))).toBe(expected)
  expect(pretty(script(lines.slice(0, 41).join("\n"), 5))).toBe(expected.replace("60 more lines", "1 more line"))
})

test("a script of exactly 40 lines is shown whole; a line filling the width exactly is not marked", () => {
  const lines = Array.from({ length: 40 }, (_, i) => (i === 0 ? "y".repeat(300) : `x${i}`))
  expect(pretty(script(lines.join("\n") + "\n", 13))).toBe(["▸ execute", ...lines.map((line) => `│ ${line}`), "  ok", ""].join("\n"))
  expect(pretty(script("y".repeat(301), 300))).toBe(`▸ execute\n│ ${"y".repeat(300)}…\n  ok\n`)
})

test("long lines in the middle are clipped and the next line starts in the gutter; sub-agent scripts too", () => {
  const text = `a\n${"b".repeat(500)}\nc`
  const shown = `│ a\n│ ${"b".repeat(300)}…\n│ c`
  expect(pretty(script(text, 64))).toBe(`▸ execute\n${shown}\n  ok\n`)
  const sub: AgentEvent[] = script(text, 9).map((part) => ({ _tag: "SubagentPart", id: "a1.1", part }))
  expect(pretty(sub)).toBe(`${`▸ execute\n${shown}\n  ok\n`.replace(/^/gm, "[a1.1] ").replace(/\[a1\.1\] $/, "")}`)
})

test("a script cut short starts again from the top: each script gets its own 40 lines", () => {
  const many = Array.from({ length: 45 }, (_, i) => `l${i}`).join("\n")
  const stdout = pretty([...script(many, 10), ...script("second", 3)])
  expect(stdout.endsWith("│ … 5 more lines\n  ok\n▸ execute\n│ second\n  ok\n")).toBe(true)
})

test("pretty output clips a very long line of script output too", () => {
  const stdout = pretty([{ _tag: "ScriptOutput", output: "y".repeat(1_000_000) + "\nshort\n" }])
  expect(stdout).toBe(`  ${"y".repeat(300)}…\n  short\n`)
})

test("long output shows 20 lines, then how many more: one more line is singular", () => {
  const output = (count: number) => Array.from({ length: count }, (_, i) => `out ${i + 1}`).join("\n") + "\n"
  const shown = Array.from({ length: 20 }, (_, i) => `  out ${i + 1}`).join("\n")
  expect(pretty(script("x()", 10, output(21)))).toBe(`▸ execute\n│ x()\n${shown}\n  … 1 more line\n`)
  expect(pretty(script("x()", 10, output(22)))).toBe(`▸ execute\n│ x()\n${shown}\n  … 2 more lines\n`)
})
