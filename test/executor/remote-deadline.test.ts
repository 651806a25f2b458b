// An executor that takes an execute and then never answers must not hang the agent: the client
// waits for the script's time limit plus a grace period, then reports the executor as lost.
import { expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { ExecutorLostError } from "../../src/errors.ts"
import { RemoteExecutor } from "../../src/executor/remote.ts"
import { PROTOCOL_VERSION } from "../../src/version.ts"
import { BUN } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

const dir = temporaryDirectory("clanka-deadline-")

/**
 * A fake executor: answers capabilities as clanka does; an execute gets, after `delayMs` (a script
 * waiting for its turn), `ticks` output notifications 100 ms apart, then a result only if `answers`.
 */
function fakeExecutor(ticks: number, answers: boolean, delayMs = 0): string[] {
  const file = join(dir, `fake-${ticks}-${answers}-${delayMs}.ts`)
  writeFileSync(
    file,
    `const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n")
const capabilities = { toolsDts: "", agentsMd: null, supportsSearch: false, protocolVersion: ${PROTOCOL_VERSION}, version: "0", directory: "/" }
for await (const line of console) {
  const request = JSON.parse(line)
  if (request.method === "capabilities") send({ id: request.id, result: capabilities })
  if (request.method === "execute") {
    await Bun.sleep(${delayMs})
    for (let i = 0; i < ${ticks}; i++) {
      await Bun.sleep(100)
      send({ method: "execute/output", params: { id: request.id, output: { _tag: "Text", text: "tick\\n" } } })
    }
    if (${answers}) send({ id: request.id, result: { ok: true } })
  }
}
`,
  )
  return [BUN, file]
}

const noSubagents = { onTaskComplete: () => {}, onSubagent: async () => "" }

/** What a 0.2 s script on a fake executor (grace 0.3 s) fails with, and how long it took. */
async function failure(argv: string[]): Promise<{ error: unknown; ms: number }> {
  const remote = await RemoteExecutor.start({ argv, label: "fake", answerGraceMs: 300 })
  const started = Date.now()
  let error: unknown
  try {
    for await (const _ of remote.execute({ ...noSubagents, script: "1", timeoutMs: 200 })) {
    }
  } catch (caught) {
    error = caught
  } finally {
    await remote.close()
  }
  return { error, ms: Date.now() - started }
}

test("an execute that is never answered fails with ExecutorLostError after the time limit and the grace", async () => {
  const { error, ms } = await failure(fakeExecutor(0, false))
  expect(error).toBeInstanceOf(ExecutorLostError)
  expect((error as Error).message).toBe(
    "the executor command (fake) stopped answering: no result 0.3 s after the script's time limit of 0.2 s; check it and run again",
  )
  expect(ms).toBeGreaterThanOrEqual(500)
  expect(ms).toBeLessThan(5000)
})

test("a script that starts late (queued) and streams past the request's deadline, within its own limit, is waited for", async () => {
  // The request's deadline is 1.2 s (limit + grace); its first output comes at ~0.8 s, its last at
  // ~1.3 s: past that deadline, well within its own limit from its first output (margins of
  // 0.4 s and more, for a loaded machine).
  const remote = await RemoteExecutor.start({ argv: fakeExecutor(6, true, 700), label: "fake", answerGraceMs: 600 })
  let printed = ""
  try {
    for await (const text of remote.execute({ ...noSubagents, script: "1", timeoutMs: 600 })) printed += text
  } finally {
    await remote.close()
  }
  expect(printed).toBe("tick\n".repeat(6))
})

test("an executor that keeps streaming past the script's time limit (counted from its first output) is lost, not waited for forever", async () => {
  const { error, ms } = await failure(fakeExecutor(100, true))
  expect(error).toBeInstanceOf(ExecutorLostError)
  expect((error as Error).message).toBe("the executor command (fake) kept the script going past its time limit of 0.2 s: no result 0.3 s after it; check it and run again")
  expect(ms).toBeLessThan(5000)
})
