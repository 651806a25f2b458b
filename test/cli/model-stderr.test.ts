// What a broken model endpoint sends reaches stderr only as clanka's own lines: the SDKs' loggers
// (which print the unparsable event and its raw chunk) are silenced.
import { afterEach, describe, expect, test } from "bun:test"
import { clanka } from "../support/cli.ts"
import { fakeProviders, startFakeModel, type FakeServer } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const directory = temporaryDirectory("clanka-model-stderr-")

describe.each(fakeProviders)("%s", (provider) => {
  test("an event whose data is not JSON is retried without the SDK printing it", async () => {
    const event = provider === "openai-compatible" ? "" : `event: ${provider === "anthropic" ? "message_start" : "response.created"}\n`
    server = await startFakeModel(provider, [
      { raw: { body: `${event}data: {"secret-looking": raw garbage\n\n` } },
      { blocks: [{ type: "execute", script: 'taskComplete("done")' }] },
    ])
    const model = provider === "anthropic" ? "anthropic/claude-sonnet-4-5" : `${provider}/gpt-5`
    const result = await clanka(["run", "-o", "text", "-C", directory, "-m", model, "hi"], { env: server.env })
    expect(result.code).toBe(0)
    expect(result.stderr).not.toContain("raw garbage")
    expect(result.stderr).not.toContain("Could not parse")
  })
})
