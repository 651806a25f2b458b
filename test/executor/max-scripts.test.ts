// `clanka executor --max-scripts N`: however many executes a client sends at once, at most N
// scripts run; the others wait their turn in order, and one cancelled while it waits never runs.
import { afterAll, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { RawSession } from "../protocol/raw-session.ts"
import { clanka } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

const dir = temporaryDirectory("clanka-max-scripts-")
const sessions: RawSession[] = []
afterAll(async () => {
  for (const session of sessions) await session.close()
})

function session(args: string[]): RawSession {
  const opened = new RawSession(dir, args)
  sessions.push(opened)
  return opened
}

/** Every message until each of `ids` has its response; notifications grouped by execute. */
async function collect(executor: RawSession, ids: number[]): Promise<{ responses: Map<number, any>; output: Map<number, string> }> {
  const responses = new Map<number, any>()
  const output = new Map<number, string>()
  while (responses.size < ids.length) {
    const message = await executor.next(30_000)
    if (message.method === "execute/output") {
      const { id, output: part } = message.params
      if (part._tag === "Text") output.set(id, (output.get(id) ?? "") + part.text)
    } else responses.set(message.id, message)
  }
  return { responses, output }
}

/** The most scripts whose [start, end] intervals overlap at one time (an end at t comes before a start at t). */
function mostAtOnce(intervals: [number, number][]): number {
  const events = intervals.flatMap(([start, end]) => [[start, 1], [end, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1])
  let now = 0
  let most = 0
  for (const [, step] of events) most = Math.max(most, (now += step))
  return most
}

test("200 executes sent at once to --max-scripts 2: all complete with their own results, never more than 2 running", async () => {
  const executor = session(["--max-scripts", "2"])
  const ids = Array.from({ length: 200 }, (_, i) => i + 1)
  // Each script says when it ran; the clock is the same for all (one process).
  for (const id of ids) {
    const script = `const start = Date.now(); await sleep(5); console.log(${id} * 2, start, Date.now())`
    executor.send({ jsonrpc: "2.0", id, method: "execute", params: { script } })
  }
  const { responses, output } = await collect(executor, ids)
  const intervals: [number, number][] = []
  for (const id of ids) {
    expect(responses.get(id)).toEqual({ jsonrpc: "2.0", id, result: { ok: true } })
    const [double, start, end] = output.get(id)!.trim().split(" ").map(Number)
    expect(double).toBe(id * 2)
    intervals.push([start!, end!])
  }
  expect(mostAtOnce(intervals)).toBe(2)
  // In the order they came: the first two ran before the last two started.
  expect(Math.max(intervals[0]![1], intervals[1]![1])).toBeLessThanOrEqual(Math.min(intervals[198]![0], intervals[199]![0]))
}, 60_000)

test("an execute cancelled while it waits for a slot is answered as cancelled and never runs", async () => {
  const executor = session(["--max-scripts", "1"])
  executor.send({ jsonrpc: "2.0", id: 1, method: "execute", params: { script: `console.log("first"); await sleep(600)` } })
  const first = await executor.next()
  expect(first.params.output).toEqual({ _tag: "Text", text: "first\n" })
  executor.send({ jsonrpc: "2.0", id: 2, method: "execute", params: { script: `await writeFile({ path: "ran.txt", content: "ran" })` } })
  executor.send({ jsonrpc: "2.0", id: 3, method: "execute", params: { script: `console.log("third")` } })
  executor.send({ jsonrpc: "2.0", method: "$/cancel", params: { id: 2 } })
  const { responses, output } = await collect(executor, [1, 2, 3])
  expect(responses.get(2)).toEqual({ jsonrpc: "2.0", id: 2, error: { code: -32001, message: "execute 2 was cancelled" } })
  expect(responses.get(1).result).toEqual({ ok: true })
  expect(responses.get(3).result).toEqual({ ok: true })
  expect(output.get(3)).toBe("third\n")
  expect(existsSync(join(dir, "ran.txt"))).toBe(false)
})

test("a script waiting for a sub-agent lends its slot: with one slot the sub-agent's script still runs", async () => {
  const executor = session(["--max-scripts", "1"])
  executor.send({ jsonrpc: "2.0", id: 1, method: "execute", params: { script: `console.log(await delegate("count"))` } })
  const asked = await executor.next()
  expect(asked.params.output).toMatchObject({ _tag: "Subagent", prompt: "count" })
  // The sub-agent's script, on the same executor, while its parent waits.
  executor.send({ jsonrpc: "2.0", id: 2, method: "execute", params: { script: `console.log(1 + 1)` } })
  const { responses, output } = await collect(executor, [2])
  expect(responses.get(2).result).toEqual({ ok: true })
  expect(output.get(2)).toBe("2\n")
  executor.send({ jsonrpc: "2.0", id: 3, method: "subagentOutput", params: { id: asked.params.output.id, output: "two" } })
  const rest = await collect(executor, [1, 3])
  expect(rest.responses.get(1).result).toEqual({ ok: true })
  expect(rest.output.get(1)).toBe("two\n")
})

test("--max-scripts takes a whole number from 1", async () => {
  for (const bad of ["0", "-1", "1.5", "two", ""]) {
    expect(await clanka(["executor", "-C", dir, "--max-scripts", bad])).toEqual({
      code: 2,
      stdout: "",
      stderr: `clanka: --max-scripts takes a whole number of scripts from 1 up, got "${bad}"\n`,
    })
  }
  // run, exec and tool pass it on to the executor they start; --executor picks its own.
  expect(await clanka(["exec", "-C", dir, "--sandbox", "off", "--max-scripts", "1", "-e", "console.log(1)"])).toEqual({ code: 0, stdout: "1\n", stderr: "" })
  const refused = await clanka(["exec", "--executor", "clanka executor", "--max-scripts", "1", "-e", "1"])
  expect(refused.code).toBe(2)
  expect(refused.stderr).toStartWith("clanka: --max-scripts does not apply to --executor")
})
