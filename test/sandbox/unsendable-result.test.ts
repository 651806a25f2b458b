// A tool result that cannot be sent to the script's worker (JSON.stringify throws: a string whose
// JSON is over the 2^31 characters a string may hold, or a BigInt) rejects the call at once instead
// of leaving the script waiting until its time limit.
import { afterAll, expect, test } from "bun:test"
import { Sandbox } from "../../src/sandbox/sandbox.ts"

const sandbox = new Sandbox(["big"], [])
afterAll(() => sandbox.close())

test("a result JSON cannot hold rejects the call with one line, and the script goes on", async () => {
  let output = ""
  const handle = sandbox.run({
    script: `try { await big() } catch (error) { console.log("rejected:", error.message) }\nconsole.log("went on")`,
    timeoutMs: 8_000,
    onOutput: (text) => (output += text),
    onCall: async () => 1n,
  })
  const result = await handle.result
  expect(result.ok).toBe(true)
  expect(output).toBe("rejected: big: the result cannot be passed to the script (JSON.stringify cannot serialize BigInt.)\nwent on\n")
})
