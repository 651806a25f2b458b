// A provider whose stream breaks the protocol: the run neither runs what a broken response asked
// for nor sends the provider a history it must refuse.
import { afterEach, describe, expect, test } from "bun:test"
import { fakeProviders } from "../support/fake-model.ts"
import { rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

describe.each(fakeProviders)("%s", (provider) => {
  test("a response with two tool calls sharing one id runs neither script; the turn is retried", async () => {
    current = await rig(provider, [
      { blocks: [{ type: "execute", script: 'console.log("one")', id: "call_1" }, { type: "execute", script: 'console.log("two")', id: "call_1" }] },
      { blocks: [{ type: "execute", script: 'taskComplete("ok")' }] },
    ])
    const events = await current.run("go")
    expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "ok" })
    expect(events.filter((event) => event._tag === "ScriptOutput").some((event: any) => /one|two/.test(event.output))).toBe(false)
    expect(events.find((event) => event._tag === "ErrorRetry")).toMatchObject({ error: { message: 'the response has two tool calls with the id "call_1"', retryable: true } })
    // The retried request holds no trace of the broken response.
    expect(current.server.requests).toHaveLength(2)
    expect(current.server.requests[1]!.toolResults).toEqual([])
  })
})
