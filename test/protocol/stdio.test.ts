// The executor's own stdout (it does not use Node's process.stdout): a reader that falls behind
// holds the script back and loses nothing; a reader that leaves ends the executor quietly.
import { afterAll, expect, test } from "bun:test"
import { realpathSync } from "node:fs"
import { RawSession } from "./raw-session.ts"
import { temporaryDirectory } from "../support/temp.ts"

const dir = realpathSync(temporaryDirectory("clanka-stdio-"))
const sessions: RawSession[] = []
afterAll(async () => {
  for (const session of sessions) if (session.child.exitCode === null) session.child.kill("SIGKILL")
})

test("a reader that stops reading for a while gets all 24 MB afterwards, in order", async () => {
  const executor = new RawSession(dir)
  sessions.push(executor)
  const line = "x".repeat(1023)
  executor.send({ jsonrpc: "2.0", id: 1, method: "execute", params: { script: `const line = "${line}"; for (let i = 0; i < 24 * 1024; i++) console.log(i + line)` } })
  // The pipe and the executor's buffers fill; the script waits (OUTPUT_WINDOW_CHARS).
  executor.child.stdout!.pause()
  await Bun.sleep(1500)
  executor.child.stdout!.resume()
  const messages = await executor.until(1, 30_000)
  expect(messages.at(-1)).toEqual({ jsonrpc: "2.0", id: 1, result: { ok: true } })
  const printed = messages.slice(0, -1).map((message) => message.params.output.text).join("")
  const lines = printed.split("\n")
  expect(lines).toHaveLength(24 * 1024 + 1)
  for (let i = 0; i < 24 * 1024; i += 997) expect(lines[i]).toBe(i + line)
  expect(lines[24 * 1024 - 1]).toBe(24 * 1024 - 1 + line)
  expect(await executor.close()).toBe(0)
  expect(executor.stderr).toBe("")
}, 60_000)

test("a reader that leaves while the executor writes: it exits 0 without a word", async () => {
  const executor = new RawSession(dir)
  sessions.push(executor)
  executor.send({ jsonrpc: "2.0", id: 1, method: "execute", params: { script: `for (let i = 0; i < 1e6; i++) console.log("spam " + i)` } })
  await executor.next()
  executor.child.stdout!.destroy()
  executor.child.stdin!.end()
  expect(await executor.exited).toBe(0)
  expect(executor.stderr).toBe("")
}, 30_000)
