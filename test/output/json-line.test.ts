// NDJSON lines that strict parsers and other line splitters read back whole.
import { expect, test } from "bun:test"
import { resultLine } from "../../src/batch/results.ts"
import { jsonLine } from "../../src/output/json-line.ts"

test("a lone surrogate becomes U+FFFD; a pair, and text that only looks like an escape, stay", () => {
  const value = { lone: "a\ud800b\udfffc", pair: "😀", text: "\\ud800", both: "\\\ud800", [`k\udc00`]: 1 }
  const line = jsonLine(value)
  expect(line).not.toMatch(/(?<!\\)(\\\\)*\\ud[89a-f]/)
  expect(JSON.parse(line)).toEqual({ lone: "a\ufffdb\ufffdc", pair: "😀", text: "\\ud800", both: "\\\ufffd", "k\ufffd": 1 })
})

test("U+0085, U+2028 and U+2029 are escaped, so splitting at them (str.splitlines) keeps one object a line", () => {
  const line = jsonLine({ text: "a\u0085b\u2028c\u2029d\ne" })
  expect(line).toBe('{"text":"a\\u0085b\\u2028c\\u2029d\\ne"}')
  expect(line.split(/[\n\r\u0085\u2028\u2029]/)).toHaveLength(1)
  expect(JSON.parse(line).text).toBe("a\u0085b\u2028c\u2029d\ne")
})

test("batch result lines are written the same way", () => {
  const line = resultLine({ id: "t\u2028", sessionId: null, exitCode: 0, costUsd: 0, turns: 1, durationMs: 1, summary: "done \ud83d", error: null } as never)
  expect(line).toBe('{"id":"t\\u2028","sessionId":null,"exitCode":0,"costUsd":0,"turns":1,"durationMs":1,"summary":"done \\ufffd","error":null}')
})
