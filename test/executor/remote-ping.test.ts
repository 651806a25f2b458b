// The client's liveness pings against executors that answer them in different ways: any line from
// the executor counts as life (an error for `ping` from an executor that predates it, output);
// silence past the timeout while a call waits is ExecutorLostError, long before the script's limit.
import { expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { ExecutorLostError } from "../../src/errors.ts"
import { RemoteExecutor } from "../../src/executor/remote.ts"
import { PROTOCOL_VERSION } from "../../src/version.ts"
import { BUN } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

const dir = temporaryDirectory("clanka-ping-")
const PING = { intervalMs: 50, timeoutMs: 300 }

/**
 * A fake executor whose execute answers after `answerAfterMs`, printing a line every `tickMs`
 * meanwhile (0: silent); `ping` is answered with null, with "unknown method", or not at all.
 */
function fakeExecutor(name: string, options: { answerAfterMs: number; tickMs: number; ping: "answer" | "unknown" | "ignore" }): string[] {
  const file = join(dir, `${name}.ts`)
  writeFileSync(
    file,
    `const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n")
const capabilities = { toolsDts: "", agentsMd: null, supportsSearch: false, protocolVersion: ${PROTOCOL_VERSION}, version: "0", directory: "/", sandbox: { mode: "off", network: true } }
for await (const line of console) {
  const request = JSON.parse(line)
  if (request.method === "capabilities") send({ id: request.id, result: capabilities })
  if (request.method === "ping" && ${JSON.stringify(options.ping)} === "answer") send({ id: request.id, result: null })
  if (request.method === "ping" && ${JSON.stringify(options.ping)} === "unknown") send({ id: request.id, error: { code: -32601, message: "unknown method" } })
  if (request.method === "execute") {
    const ticker = ${options.tickMs} ? setInterval(() => send({ method: "execute/output", params: { id: request.id, output: { _tag: "Text", text: "tick\\n" } } }), ${options.tickMs}) : undefined
    setTimeout(() => { clearInterval(ticker); send({ id: request.id, result: { ok: true } }) }, ${options.answerAfterMs})
  }
}
`,
  )
  return [BUN, file]
}

const noSubagents = { onTaskComplete: () => {}, onSubagent: async () => "" }

async function execute(argv: string[]): Promise<{ printed: string; error?: unknown; ms: number }> {
  const remote = await RemoteExecutor.start({ argv, label: "fake", ping: PING })
  const started = Date.now()
  let printed = ""
  try {
    for await (const text of remote.execute({ ...noSubagents, script: "1", timeoutMs: 60_000 })) printed += text
    return { printed, ms: Date.now() - started }
  } catch (error) {
    return { printed, error, ms: Date.now() - started }
  } finally {
    await remote.close()
  }
}

test("a silent execute on an executor that answers pings is waited for", async () => {
  const result = await execute(fakeExecutor("answers", { answerAfterMs: 1200, tickMs: 0, ping: "answer" }))
  expect(result.error).toBeUndefined()
  expect(result.ms).toBeGreaterThanOrEqual(1200)
})

test("an executor that predates ping answers it with an error: alive too", async () => {
  const result = await execute(fakeExecutor("unknown", { answerAfterMs: 1200, tickMs: 0, ping: "unknown" }))
  expect(result.error).toBeUndefined()
})

test("output counts as life: an executor that ignores pings but keeps printing is waited for", async () => {
  const result = await execute(fakeExecutor("ticks", { answerAfterMs: 1200, tickMs: 50, ping: "ignore" }))
  expect(result.error).toBeUndefined()
  expect(result.printed).toStartWith("tick\n")
})

test("silence past the ping timeout while an execute waits: ExecutorLostError, whatever the script's limit", async () => {
  const result = await execute(fakeExecutor("silent", { answerAfterMs: 60_000, tickMs: 0, ping: "ignore" }))
  expect(result.error).toBeInstanceOf(ExecutorLostError)
  expect((result.error as Error).message).toBe("the executor command (fake) stopped answering: no reply to pings for 0.3 s; check it and run again")
  expect(result.ms).toBeLessThan(3000)
})

test("an idle executor is not pinged into failure: the silence counts from when a call starts waiting", async () => {
  const remote = await RemoteExecutor.start({ argv: fakeExecutor("idle", { answerAfterMs: 100, tickMs: 0, ping: "ignore" }), label: "fake", ping: PING })
  try {
    await Bun.sleep(600) // twice the timeout with nothing pending
    for await (const _ of remote.execute({ ...noSubagents, script: "1" })) {
    }
  } finally {
    await remote.close()
  }
})
