// A running script's output is shown as it is printed: ScriptOutputDelta events in --json, its
// lines in text mode's progress, while ScriptOutput stays the complete text the model gets.
import { afterEach, expect, test } from "bun:test"
import { clankaTimed, type TimedLine } from "../support/cli.ts"
import { startFakeModel, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

const directory = temporaryDirectory("clanka-live-")
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const SLOW = "console.log('start'); await sleep(1500); console.log('end')"
const turns: FakeTurn[] = [
  { blocks: [{ type: "execute", script: SLOW }] },
  { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] },
]

async function env(): Promise<Record<string, string>> {
  server = await startFakeModel("anthropic", turns)
  return { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5" }
}

const find = (lines: TimedLine[], match: (line: string) => boolean) => {
  const found = lines.find((item) => match(item.line))
  if (!found) throw new Error(`no such line in:\n${lines.map((item) => item.line).join("\n")}`)
  return found
}

test("--json: the script's first line arrives as a ScriptOutputDelta while it still runs", async () => {
  const result = await clankaTimed(["run", "--json", "-C", directory, "go"], { env: await env() })
  expect(result.code).toBe(0)
  const events = result.stdout.map((item) => JSON.parse(item.line))
  expect(events.map((event) => (event._tag === "ScriptOutputDelta" || event._tag === "ScriptOutput" ? event : event._tag))).toEqual([
    "AgentStart",
    "ScriptStart",
    "ScriptDelta",
    "ScriptEnd",
    "Usage",
    { _tag: "ScriptOutputDelta", id: "toolu_0_0", text: "start\n" },
    { _tag: "ScriptOutputDelta", id: "toolu_0_0", text: "end\n" },
    { _tag: "ScriptOutput", output: "start\nend\n" },
    "ScriptStart",
    "ScriptDelta",
    "ScriptEnd",
    "Usage",
    { _tag: "ScriptOutput", output: "(no output)" },
    "AgentFinished",
  ])
  const start = find(result.stdout, (line) => line.includes('"text":"start\\n"'))
  const end = find(result.stdout, (line) => line.includes('"text":"end\\n"'))
  const output = find(result.stdout, (line) => line.includes('"_tag":"ScriptOutput"'))
  expect(end.at - start.at).toBeGreaterThanOrEqual(1000)
  expect(output.at).toBeGreaterThanOrEqual(end.at)
  // The model got the whole output once, as before.
  expect(server!.requests[1]!.toolResults).toEqual(["start\nend\n"])
})

test("text mode: the progress on stderr shows each line as it is printed, and not twice", async () => {
  const result = await clankaTimed(["run", "-o", "text", "-C", directory, "go"], { env: await env() })
  expect(result.code).toBe(0)
  expect(result.stdout.map((item) => item.line)).toEqual(["done"])
  const start = find(result.stderr, (line) => line === "  start")
  const end = find(result.stderr, (line) => line === "  end")
  expect(end.at - start.at).toBeGreaterThanOrEqual(1000)
  const text = result.stderr.map((item) => item.line)
  expect(text.filter((line) => line === "  start" || line === "  end")).toEqual(["  start", "  end"])
  // The script's lines come right after its turn's usage line, then the next script.
  const at = text.indexOf("  start")
  expect(text[at - 1]).toMatch(/ in · .* out · /)
  expect(text[at + 2]).toBe("▸ execute")
})
