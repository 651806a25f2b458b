// The trace context in the executor protocol: an execute that carries one gets its tool calls back
// as spans (made on the executor, exported by the agent); one that does not (an older agent) sees
// exactly what it always saw.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { sessionPerTest } from "./raw-session.ts"

let dir: string

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "clanka-trace-")))
  writeFileSync(join(dir, "a.txt"), "a\n")
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const session = sessionPerTest(() => dir)
const TRACE = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", tracestate: "vendor=1" }
const SCRIPT = 'console.log(await readFile({ path: "a.txt" }))\nawait ls("missing-dir").catch(() => console.log("no dir"))'

test("an execute with a trace context gets a span for each tool call, before its result", async () => {
  const before = Date.now()
  session().send({ jsonrpc: "2.0", id: 1, method: "execute", params: { script: SCRIPT, trace: TRACE } })
  const messages = await session().until(1)
  expect(messages.at(-1)).toEqual({ jsonrpc: "2.0", id: 1, result: { ok: true } })
  const outputs = messages.slice(0, -1).map((message) => message.params.output)
  expect(outputs.filter((output) => output._tag === "Text").map((output) => output.text).join("")).toBe("a\n\nno dir\n")
  const spans = outputs.filter((output) => output._tag === "Spans").flatMap((output) => output.spans)
  // The spans come last, once the script has ended.
  expect(outputs.at(-1)._tag).toBe("Spans")
  expect(spans).toEqual([
    {
      spanId: expect.stringMatching(/^[\da-f]{16}$/),
      name: "execute_tool readFile",
      startMs: expect.any(Number),
      endMs: expect.any(Number),
      attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "readFile", "gen_ai.tool.type": "function", "host.name": hostname() },
    },
    {
      spanId: expect.stringMatching(/^[\da-f]{16}$/),
      name: "execute_tool ls",
      startMs: expect.any(Number),
      endMs: expect.any(Number),
      error: expect.stringContaining("missing-dir"),
      attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "ls", "gen_ai.tool.type": "function", "host.name": hostname() },
    },
  ])
  expect(spans[0].spanId).not.toBe(spans[1].spanId)
  for (const span of spans) {
    expect(span.startMs).toBeGreaterThanOrEqual(before)
    expect(span.endMs).toBeGreaterThanOrEqual(span.startMs)
    expect(span.endMs).toBeLessThanOrEqual(Date.now())
  }
  expect(spans[1].startMs).toBeGreaterThanOrEqual(spans[0].endMs)
})

test("a delegate() call names its span in the Subagent output, so the sub-agent nests under it", async () => {
  session().send({ jsonrpc: "2.0", id: 2, method: "execute", params: { script: 'console.log(await delegate("look"))', trace: TRACE } })
  const ask = await session().next()
  expect(ask.params.output).toEqual({ _tag: "Subagent", id: 1, prompt: "look", spanId: expect.stringMatching(/^[\da-f]{16}$/) })
  session().send({ jsonrpc: "2.0", id: 3, method: "subagentOutput", params: { id: 1, output: "seen" } })
  const messages = await session().until(2)
  const spans = messages.filter((message) => message.params?.output?._tag === "Spans").flatMap((message) => message.params.output.spans)
  expect(spans.map((span: { name: string }) => span.name)).toEqual(["execute_tool delegate"])
  expect(spans[0].spanId).toBe(ask.params.output.spanId)
})

test("without a trace context (an older agent) nothing is recorded and a Subagent has no span", async () => {
  session().send({ jsonrpc: "2.0", id: 4, method: "execute", params: { script: SCRIPT } })
  const messages = await session().until(4)
  expect(messages.filter((message) => message.params?.output?._tag !== "Text" && message.id !== 4)).toEqual([])
  session().send({ jsonrpc: "2.0", id: 5, method: "execute", params: { script: 'console.log(await delegate("look"))' } })
  const ask = await session().next()
  expect(ask.params.output).toEqual({ _tag: "Subagent", id: 1, prompt: "look" })
})

test("a malformed trace context is ignored: the script runs, no spans come back", async () => {
  for (const traceparent of ["not a traceparent", "00-00000000000000000000000000000000-b7ad6b7169203331-01"]) {
    session().send({ jsonrpc: "2.0", id: traceparent, method: "execute", params: { script: SCRIPT, trace: { traceparent } } })
    const messages = await session().until(traceparent)
    expect(messages.at(-1).result).toEqual({ ok: true })
    expect(messages.some((message) => message.params?.output?._tag === "Spans")).toBe(false)
  }
})
