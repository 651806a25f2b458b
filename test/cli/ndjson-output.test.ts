// `--json` output as a strict consumer reads it: every line of stdout is one JSON object whose
// strings are valid Unicode, whatever the model, the prompt or a script put in them (raw newlines,
// NUL, ESC sequences, U+2028, lone UTF-16 surrogates). jq, serde_json and others reject a lone
// surrogate escape (`"\ud800"`), and Python's str.splitlines() also breaks at U+2028: either would
// cost the consumer the line.
import { afterEach, expect, test } from "bun:test"
import { clanka } from "../support/cli.ts"
import { startFakeModel, type FakeServer } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

const dir = temporaryDirectory("clanka-ndjson-out-")
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const NASTY = "a\nb\u0000c\u001b[31mred\u001b]0;title\u0007 \ud800 lone \udfff x\r\n\u2028 😀 end"

/** Every string in a parsed value (keys included) is well-formed UTF-16; names the first that is not. */
function illFormed(value: unknown, path = "$"): string | undefined {
  if (typeof value === "string") return value.isWellFormed() ? undefined : path
  if (!value || typeof value !== "object") return undefined
  for (const [key, item] of Object.entries(value)) {
    if (!key.isWellFormed()) return `${path} key ${JSON.stringify(key)}`
    const found = illFormed(item, `${path}.${key}`)
    if (found) return found
  }
  return undefined
}

test("lone surrogates from the model, the prompt and a script's result reach --json as U+FFFD, never as an escape a strict parser rejects", async () => {
  server = await startFakeModel("anthropic", [
    {
      blocks: [
        { type: "reasoning", text: NASTY },
        { type: "text", text: NASTY },
        { type: "execute", script: `console.log(${JSON.stringify(NASTY)})` },
      ],
    },
    { blocks: [{ type: "execute", script: `await taskComplete(${JSON.stringify(NASTY)})` }] },
  ])
  // The prompt comes through --input ndjson: a command line cannot carry a lone surrogate.
  const result = await clanka(["run", "--input", "ndjson", "--no-session", "-C", dir], {
    env: { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5" },
    stdin: `${JSON.stringify({ type: "prompt", text: `prompt ${NASTY}` })}\n`,
    timeoutMs: 30_000,
  })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const lines = result.stdout.trimEnd().split("\n")
  for (const line of lines) {
    // One object per line, whatever splits the lines, and no escape of a lone surrogate in its text.
    expect(line).not.toMatch(/(?<!\\)(\\\\)*\\ud[89a-f][\da-f]{2}/i)
    expect(line).not.toMatch(/[\r\u0085\u2028\u2029]/)
    const event = JSON.parse(line)
    expect(typeof event._tag).toBe("string")
    expect(illFormed(event)).toBeUndefined()
  }
  const events = lines.map((line) => JSON.parse(line))
  const shown = NASTY.toWellFormed()
  expect(events[0]).toMatchObject({ _tag: "AgentStart", prompt: `prompt ${shown}` })
  expect(events.filter((event) => event._tag === "ReasoningDelta").map((event) => event.delta)).toEqual([shown, shown])
  expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: shown })
  // The rest stays exactly as it was: escaped control characters, real pairs kept.
  expect(shown).toContain("😀")
  expect(shown).toContain("\u001b]0;title\u0007")
})
