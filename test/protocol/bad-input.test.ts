// Every malformed input gets the JSON-RPC error SPEC section 4 names, and the executor keeps serving.
// Each test has its own executor, which must exit 0 with nothing on stderr (see sessionPerTest).
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sessionPerTest } from "./raw-session.ts"

let dir: string
let nextId = 1000

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "clanka-bad-input-"))
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const session = sessionPerTest(() => dir)

/** The executor still answers a real request after the bad one, and nothing else is pending. */
async function stillServing(): Promise<void> {
  const id = nextId++
  session().send({ jsonrpc: "2.0", id, method: "execute", params: { script: `console.log("still serving ${id}")` } })
  expect(await session().until(id)).toEqual([
    { jsonrpc: "2.0", method: "execute/output", params: { id, output: { _tag: "Text", text: `still serving ${id}\n` } } },
    { jsonrpc: "2.0", id, result: { ok: true } },
  ])
}

test("invalid JSON: -32700 with id null", async () => {
  session().write('{"jsonrpc":"2.0","id":1,"method":\n')
  expect(await session().next()).toEqual({
    jsonrpc: "2.0",
    id: null,
    error: { code: -32700, message: "parse error: the line is not valid JSON" },
  })
  await stillServing()
})

test("JSON that is not an object: -32600", async () => {
  session().write("42\n")
  expect(await session().next()).toEqual({
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message: "invalid request: not a JSON-RPC request object" },
  })
  session().write('[{"jsonrpc":"2.0","id":1,"method":"capabilities"}]\n')
  expect(await session().next()).toEqual({
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message: "invalid request: batches are not supported; send one request per line" },
  })
  await stillServing()
})

test("a request without jsonrpc 2.0: -32600 with its id", async () => {
  session().write('{"id":7,"method":"capabilities"}\n')
  const reply = await session().next()
  expect(reply.id).toBe(7)
  expect(reply.error.code).toBe(-32600)
  expect(reply.error.message).toBe('invalid request: needs "jsonrpc": "2.0", a string "method" and a string or number "id"')
  expect(reply.error.data[0].path).toEqual([{ type: "object", origin: "key", key: "jsonrpc" }])
  await stillServing()
})

test("missing method: -32600", async () => {
  session().write('{"jsonrpc":"2.0","id":8}\n')
  const reply = await session().next()
  expect(reply).toMatchObject({ jsonrpc: "2.0", id: 8, error: { code: -32600, message: "invalid request: missing method" } })
  await stillServing()
})

test("unknown method: -32601", async () => {
  expect(await session().call(9, "runEverything", {})).toEqual({
    jsonrpc: "2.0",
    id: 9,
    error: {
      code: -32601,
      message: 'unknown method "runEverything"; methods: capabilities, execute, executeUnsafe, subagentOutput, agentCallResult, ping, $/cancel',
    },
  })
  await stillServing()
})

test("wrong params: -32602 with the valibot issues in data", async () => {
  expect(await session().call(10, "execute", { script: 42 })).toEqual({
    jsonrpc: "2.0",
    id: 10,
    error: {
      code: -32602,
      message: "invalid params for execute: script: Invalid type: Expected string but received 42",
      data: [
        {
          kind: "schema",
          type: "string",
          message: "Invalid type: Expected string but received 42",
          expected: "string",
          received: "42",
          path: [{ type: "object", origin: "value", key: "script" }],
        },
      ],
    },
  })
  await stillServing()
})

test("wrong tool params in executeUnsafe: -32602 with the tool's issues", async () => {
  const reply = await session().call(11, "executeUnsafe", { tool: "readFile", params: { path: 3 } })
  expect(reply.error.code).toBe(-32602)
  expect(reply.error.message).toBe("readFile: invalid parameters: path: Invalid type: Expected string but received 3")
  expect(reply.error.data.map((issue: any) => issue.message)).toEqual(["Invalid type: Expected string but received 3"])
  await stillServing()
})

test("a failing tool in executeUnsafe: -32000 with the tool's message", async () => {
  expect(await session().call(12, "executeUnsafe", { tool: "updateTodo", params: { id: 99, completed: true } })).toEqual({
    jsonrpc: "2.0",
    id: 12,
    error: { code: -32000, message: "updateTodo: no todo with id 99; listTodos() shows the ids" },
  })
  await stillServing()
})

test("a 10 MB line: -32600, then reading resyncs at the next newline", async () => {
  const huge = Buffer.alloc(10 * 1000 * 1000, "x")
  // Sent in pieces, with a real request right behind it in the same write.
  session().write(huge.subarray(0, 3_000_000))
  session().write(huge.subarray(3_000_000))
  session().write('\n{"jsonrpc":"2.0","id":13,"method":"execute","params":{"script":"console.log(1)"}}\n')
  expect(await session().next()).toEqual({
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message: "invalid request: line longer than 8388608 bytes; skipped to the next newline" },
  })
  expect(await session().until(13)).toEqual([
    { jsonrpc: "2.0", method: "execute/output", params: { id: 13, output: { _tag: "Text", text: "1\n" } } },
    { jsonrpc: "2.0", id: 13, result: { ok: true } },
  ])
  await stillServing()
})

test("notifications are never answered: an unknown method, an execute without id, a $/cancel for an unknown id go to the log", async () => {
  session().send({ jsonrpc: "2.0", method: "runEverything", params: {} })
  session().send({ jsonrpc: "2.0", method: "execute", params: { script: "console.log(1)" } })
  session().send({ jsonrpc: "2.0", method: "$/cancel", params: { id: 555 } })
  // The next line on stdout is the answer to the next request: nothing answered the three.
  await stillServing()
  expect(session().stderr).toBe(
    [
      'clanka executor: ignored a notification: unknown method "runEverything"',
      'clanka executor: ignored a notification: execute needs a string or number "id"',
      "clanka executor: ignored a notification: $/cancel: no execute is running with id 555",
      "",
    ].join("\n"),
  )
  session().stderr = ""
})

test("$/cancel as a request for an unknown id: -32602", async () => {
  expect(await session().call(14, "$/cancel", { id: "nope" })).toEqual({
    jsonrpc: "2.0",
    id: 14,
    error: { code: -32602, message: '$/cancel: no execute is running with id "nope"' },
  })
  await stillServing()
})

test("executeUnsafe of an unknown tool: -32602 naming the tools", async () => {
  const answer = await session().call(17, "executeUnsafe", { tool: "frob", params: {} })
  expect(answer.error.code).toBe(-32602)
  expect(answer.error.message).toStartWith('unknown tool "frob"; tools: readFile, writeFile,')
  expect(answer.error.data.unknownTool).toBe("frob")
  await stillServing()
})

test("subagentOutput for an unknown id: -32602", async () => {
  expect(await session().call(15, "subagentOutput", { id: 77, output: "done" })).toEqual({
    jsonrpc: "2.0",
    id: 15,
    error: { code: -32602, message: "subagentOutput: no sub-agent is waiting with id 77" },
  })
  await stillServing()
})

test("a request id reused while in flight: -32600 with id null; the first request is unharmed", async () => {
  session().send({ jsonrpc: "2.0", id: 16, method: "execute", params: { script: 'await sleep(300); console.log("first")' } })
  session().send({ jsonrpc: "2.0", id: 16, method: "capabilities" })
  expect(await session().next()).toEqual({
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message: "invalid request: id 16 is already in flight" },
  })
  expect(await session().until(16)).toEqual([
    { jsonrpc: "2.0", method: "execute/output", params: { id: 16, output: { _tag: "Text", text: "first\n" } } },
    { jsonrpc: "2.0", id: 16, result: { ok: true } },
  ])
  // Once answered, the id may be used again.
  expect((await session().call(16, "capabilities")).result.protocolVersion).toBe(1)
  await stillServing()
})
