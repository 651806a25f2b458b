// `clanka executor` as an agent sees it: requests and notifications on a real process's stdio.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { VERSION } from "../../src/version.ts"
import { sessionPerTest, type RawSession } from "./raw-session.ts"
import { isRunning } from "../support/processes.ts"

let dir: string

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "clanka-server-")))
  writeFileSync(join(dir, "AGENTS.md"), "Be brief.\n")
})

afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

const session = sessionPerTest(() => dir)

const text = (id: number | string, value: string) => ({
  jsonrpc: "2.0",
  method: "execute/output",
  params: { id, output: { _tag: "Text", text: value } },
})

test("capabilities name the protocol version, the clanka version and the directory", async () => {
  const { result } = await session().call(1, "capabilities")
  expect(result.protocolVersion).toBe(1)
  expect(result.version).toBe(VERSION)
  expect(result.directory).toBe(dir)
  expect(result.agentsMd).toBe("Be brief.\n")
  expect(result.toolsDts).toContain("declare function readFile(")
})

test("a script that throws answers ok:false with the one-line error after its output", async () => {
  session().send({ jsonrpc: "2.0", id: 2, method: "execute", params: { script: 'console.log("before"); throw new Error("boom")' } })
  const messages = await session().until(2)
  expect(messages.at(-1)).toEqual({ jsonrpc: "2.0", id: 2, result: { ok: false, error: "Error: boom (line 1)" } })
  const printed = messages.slice(0, -1).map((message) => message.params.output.text).join("")
  expect(printed).toBe('before\nError: boom (line 1)\n  1 | console.log("before"); throw new Error("boom")\n')
})

test("several executes run at once and their output stays apart by request id", async () => {
  // Each script prints, sleeps 300 ms and prints again: run one after the other they would take
  // 900 ms, and one would finish before the next printed anything.
  const names = ["a", "b", "c"]
  const script = (name: string) => `console.log("${name} start"); await sleep(300); console.log("${name} end")`
  const started = Date.now()
  for (const name of names) session().send({ jsonrpc: "2.0", id: name, method: "execute", params: { script: script(name) } })
  const outputs: Record<string, string> = { a: "", b: "", c: "" }
  const events: string[] = []
  while (events.filter((event) => event.endsWith(" done")).length < names.length) {
    const message = await session().next()
    if (message.method === "execute/output") {
      outputs[message.params.id] += message.params.output.text
      events.push(message.params.output.text.trim())
    } else {
      expect(message.result).toEqual({ ok: true })
      events.push(`${message.id} done`)
    }
  }
  expect(outputs).toEqual({ a: "a start\na end\n", b: "b start\nb end\n", c: "c start\nc end\n" })
  // Overlapped: every script had started before any of them ended.
  expect(events.slice(0, 3).sort()).toEqual(["a start", "b start", "c start"])
  expect(Date.now() - started).toBeLessThan(1500)
})

test("delegate() blocks until subagentOutput answers; sub-agent ids are unique per connection", async () => {
  session().send({
    jsonrpc: "2.0",
    id: 3,
    method: "execute",
    params: { script: 'console.log(await delegate("first task")); console.log(await delegate("second task"))' },
  })
  session().send({ jsonrpc: "2.0", id: 4, method: "execute", params: { script: 'console.log(await delegate("other task"))' } })
  const answers: Record<string, { output: string; error?: string }> = {
    "first task": { output: "summary one" },
    "second task": { output: "summary two" },
    "other task": { output: "", error: "the sub-agent gave up" },
  }
  const subagents: { execute: number; id: unknown; prompt: string }[] = []
  const outputs: Record<string, string> = { "3": "", "4": "" }
  const results: Record<string, unknown> = {}
  let answerId = 90
  while (Object.keys(results).length < 2) {
    const message = await session().next()
    const output = message.params?.output
    if (output?._tag === "Subagent") {
      subagents.push({ execute: message.params.id, id: output.id, prompt: output.prompt })
      session().send({ jsonrpc: "2.0", id: answerId++, method: "subagentOutput", params: { id: output.id, ...answers[output.prompt] } })
    } else if (output?._tag === "Text") outputs[message.params.id] += output.text
    else if (message.id === 3 || message.id === 4) results[message.id] = message.result
    else expect(message).toEqual({ jsonrpc: "2.0", id: message.id, result: null }) // subagentOutput's answer
  }
  expect(subagents.map(({ execute, prompt }) => `${execute}:${prompt}`).sort()).toEqual([
    "3:first task",
    "3:second task",
    "4:other task",
  ])
  expect(new Set(subagents.map(({ id }) => id)).size).toBe(3)
  expect(outputs["3"]).toBe("summary one\nsummary two\n")
  expect(outputs["4"]).toBe('Error: delegate: the sub-agent gave up (line 1)\n  1 | console.log(await delegate("other task"))\n')
  expect(results).toEqual({ "3": { ok: true }, "4": { ok: false, error: "Error: delegate: the sub-agent gave up (line 1)" } })
})

test("taskComplete is reported as a TaskComplete notification", async () => {
  session().send({ jsonrpc: "2.0", id: 5, method: "execute", params: { script: 'await taskComplete("all done")' } })
  expect(await session().until(5)).toEqual([
    { jsonrpc: "2.0", method: "execute/output", params: { id: 5, output: { _tag: "TaskComplete", summary: "all done" } } },
    { jsonrpc: "2.0", id: 5, result: { ok: true } },
  ])
})

test("$/cancel stops a running execute, which answers -32001", async () => {
  session().send({ jsonrpc: "2.0", id: 6, method: "execute", params: { script: 'console.log("started"); await sleep(60000)' } })
  expect(await session().next()).toEqual(text(6, "started\n"))
  const started = Date.now()
  session().send({ jsonrpc: "2.0", method: "$/cancel", params: { id: 6 } })
  expect(await session().next()).toEqual({ jsonrpc: "2.0", id: 6, error: { code: -32001, message: "execute 6 was cancelled" } })
  expect(Date.now() - started).toBeLessThan(1000)
})

test("a script past its timeoutMs answers ok:false and the executor goes on", async () => {
  session().send({ jsonrpc: "2.0", id: 7, method: "execute", params: { script: "while (true) {}", timeoutMs: 300 } })
  const messages = await session().until(7)
  expect(messages.at(-1)).toEqual({ jsonrpc: "2.0", id: 7, result: { ok: false, error: "script timed out after 0.3 s and was stopped" } })
  session().send({ jsonrpc: "2.0", id: 8, method: "execute", params: { script: "console.log(6 * 7)" } })
  expect(await session().until(8)).toEqual([text(8, "42\n"), { jsonrpc: "2.0", id: 8, result: { ok: true } }])
})

test("ping is answered at once while scripts spin and wait on a command", async () => {
  session().send({ jsonrpc: "2.0", id: "spin", method: "execute", params: { script: 'console.log("spinning"); while (true) {}', timeoutMs: 3000 } })
  expect(await session().next()).toEqual(text("spin", "spinning\n"))
  session().send({ jsonrpc: "2.0", id: "wait", method: "execute", params: { script: 'console.log("waiting"); await bash({ command: "sleep 3" })', timeoutMs: 5000 } })
  expect(await session().next()).toEqual(text("wait", "waiting\n"))
  const started = Date.now()
  expect(await session().call(9, "ping")).toEqual({ jsonrpc: "2.0", id: 9, result: null })
  // While both still run: a ping held up by them would wait about 3 s (a busy machine can take
  // most of a second to answer at all).
  expect(Date.now() - started).toBeLessThan(2000)
  session().send({ jsonrpc: "2.0", method: "$/cancel", params: { id: "spin" } })
  session().send({ jsonrpc: "2.0", method: "$/cancel", params: { id: "wait" } })
  const ends = [await session().next(), await session().next()].map((message) => message.id).sort()
  expect(ends).toEqual(["spin", "wait"])
})

test("100 kB printed in many lines arrives whole, in few notifications", async () => {
  session().send({
    jsonrpc: "2.0",
    id: 9,
    method: "execute",
    params: { script: 'for (let i = 0; i < 10000; i++) console.log("line " + String(i).padStart(4, "0"))' },
  })
  const messages = await session().until(9)
  const printed = messages.slice(0, -1).map((message) => message.params.output.text).join("")
  expect(printed).toBe(Array.from({ length: 10000 }, (_, i) => `line ${String(i).padStart(4, "0")}\n`).join(""))
  expect(messages.length).toBeLessThan(100)
})

test("when stdin closes, running executes are stopped and the executor exits 0 at once", async () => {
  const server = session()
  server.send({ jsonrpc: "2.0", id: 1, method: "execute", params: { script: 'console.log("waiting"); await sleep(60000)' } })
  expect(await server.next()).toEqual(text(1, "waiting\n"))
  const started = Date.now()
  expect(await server.close()).toBe(0)
  expect(Date.now() - started).toBeLessThan(1000)
  expect(server.stderr).toBe("")
})

for (const [how, stop] of [
  ["stdin closes", (session: RawSession) => session.child.stdin!.end()],
  ["the executor gets SIGTERM", (session: RawSession) => session.child.kill("SIGTERM")],
] as const) {
  test(`when ${how}, processes a running script started are killed and the executor exits 0`, async () => {
    const server = session()
    const pidFile = join(dir, `sleeper-${how.length}.pid`)
    server.send({
      jsonrpc: "2.0",
      id: 1,
      method: "execute",
      params: { script: `await bash({ command: "echo $$ > '${pidFile}'; exec sleep 60" })` },
    })
    while (!existsSync(pidFile) || readFileSync(pidFile, "utf8") === "") await Bun.sleep(20)
    const pid = Number(readFileSync(pidFile, "utf8"))
    expect(alive(pid)).toBe(true)
    stop(server)
    expect(await server.exited).toBe(0)
    await Bun.sleep(50)
    expect(alive(pid)).toBe(false)
    expect(server.stderr).toBe("")
  })
}

test("when stdin closes during a tool call, the processes it started are killed and the executor exits 0 at once", async () => {
  // A tool call cannot be cancelled, but what it started is killed like a script's.
  const server = session()
  const pidFile = join(dir, "tool-sleeper.pid")
  server.send({ jsonrpc: "2.0", id: 1, method: "executeUnsafe", params: { tool: "bash", params: { command: `echo $$ > '${pidFile}'; exec sleep 60` } } })
  while (!existsSync(pidFile) || readFileSync(pidFile, "utf8") === "") await Bun.sleep(20)
  const pid = Number(readFileSync(pidFile, "utf8"))
  expect(alive(pid)).toBe(true)
  const started = Date.now()
  server.child.stdin!.end()
  expect(await server.exited).toBe(0)
  expect(Date.now() - started).toBeLessThan(2000)
  expect(alive(pid)).toBe(false)
  expect(server.stderr).toBe("")
})

const alive = isRunning
