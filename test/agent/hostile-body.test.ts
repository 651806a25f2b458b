// An endpoint that answers with something other than an event stream of sane size: an HTML page
// (a proxy, a web UI at the base URL), a body without end, a gzip bomb. The run ends at once with
// one line, having read a bounded amount.
import { afterEach, describe, expect, test } from "bun:test"
import { MAX_RESPONSE_BYTES } from "../../src/providers/guarded-fetch.ts"
import { fakeProviders, type FakeProvider } from "../support/fake-model.ts"
import { brief, rig, type Rig } from "./helpers.ts"

let current: Rig | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})

const done = { blocks: [{ type: "execute" as const, script: 'taskComplete("should not get here")' }] }

function apiName(provider: FakeProvider, url: string): string {
  return provider === "anthropic" ? "Anthropic API" : provider === "openai" ? "OpenAI API" : `OpenAI-compatible API at ${url}`
}

describe.each(fakeProviders)("%s", (provider) => {
  test("a 200 with an HTML page ends the run at once, naming the base URL", async () => {
    const page = "<!doctype html><html><head><title>Sign in</title></head><body>Sign in to the Wi-Fi</body></html>"
    current = await rig(provider, [{ raw: { headers: { "content-type": "text/html; charset=utf-8" }, body: page } }, done])
    const events = await current.run("go")
    const url = current.server.url
    expect(events.map(brief)).toEqual([
      "AgentStart",
      `AgentError 1 ${apiName(provider, url)} answered with an HTML page, not an event stream: is ${url} the API's URL?`,
    ])
    expect(current.server.requests).toHaveLength(1)
  })
})

describe.each(fakeProviders)("%s", (provider) => {
  test("a 200 with a JSON body (a server that does not stream) ends the run at once, saying so", async () => {
    const body = JSON.stringify({ id: "chatcmpl-1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] })
    current = await rig(provider, [{ raw: { headers: { "content-type": "application/json" }, body } }, done])
    const events = await current.run("go")
    expect(events.map(brief)).toEqual([
      "AgentStart",
      `AgentError 1 ${apiName(provider, current.server.url)} answered with JSON, not an event stream: does the server stream responses (stream: true)?`,
    ])
    expect(current.server.requests).toHaveLength(1)
  })

  test("a 200 with a JSON error body is retried, naming the error", async () => {
    const body = JSON.stringify({ error: { message: "model is loading", type: "server_error" } })
    current = await rig(provider, [{ raw: { headers: { "content-type": "application/json" }, body } }, { blocks: [{ type: "execute", script: 'taskComplete("ok")' }] }])
    const events = await current.run("go")
    expect(events.filter((event) => event._tag === "ErrorRetry")).toEqual([
      { _tag: "ErrorRetry", error: { message: `${apiName(provider, current.server.url)} error (server_error): model is loading`, retryable: true } },
    ])
    expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "ok" })
  })
})

const MiB = 1024 * 1024

/** A body that never ends: 1 MiB pieces of one SSE line with no line break; counts what it sent. */
function endless(sent: { bytes: number }): ReadableStream<Uint8Array> {
  const piece = new TextEncoder().encode("a".repeat(MiB))
  let first = true
  return new ReadableStream({
    pull(controller) {
      const chunk = first ? new TextEncoder().encode('data: {"type":"') : piece
      first = false
      sent.bytes += chunk.length
      controller.enqueue(chunk)
    },
  })
}

describe.each(["anthropic", "openai-compatible"] as const)("%s", (provider) => {
  test(`a response body without end is cut at ${MAX_RESPONSE_BYTES / MiB} MiB and not retried`, async () => {
    const sent = { bytes: 0 }
    current = await rig(provider, [{ raw: { body: endless(sent) } }, done])
    const events = await current.run("go")
    expect(events.map(brief)).toEqual([
      "AgentStart",
      `AgentError 1 ${apiName(provider, current.server.url)} sent more than ${MAX_RESPONSE_BYTES / MiB} MiB in one response; clanka stopped reading it`,
    ])
    expect(current.server.requests).toHaveLength(1)
    // Read up to the cap (and what the socket buffered), not on without end.
    expect(sent.bytes).toBeLessThan(MAX_RESPONSE_BYTES + 64 * MiB)
  })
})

test("a gzip bomb is counted as it inflates: cut at the cap, not inflated whole", async () => {
  // The endless line, gzipped as it is sent: about 1 KiB on the wire per MiB inflated.
  const bomb = endless({ bytes: 0 }).pipeThrough(new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>)
  current = await rig("anthropic", [{ raw: { headers: { "content-encoding": "gzip" }, body: bomb } }, done])
  const events = await current.run("go")
  expect(events.map(brief)).toEqual([
    "AgentStart",
    `AgentError 1 Anthropic API sent more than ${MAX_RESPONSE_BYTES / MiB} MiB in one response; clanka stopped reading it`,
  ])
  // The bomb has no end: that the run ended at all shows the reading stopped.
})

describe.each(fakeProviders)("%s", (provider) => {
  test("a redirect to another host does not carry the API key there", async () => {
    const seen: Record<string, string>[] = []
    const elsewhere = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        seen.push(Object.fromEntries(req.headers))
        return Response.json({ error: { type: "invalid_request_error", message: "not here" } }, { status: 400 })
      },
    })
    try {
      // Another port is another origin.
      const sent = (origin: string) => `http://127.0.0.1:${elsewhere.port}${new URL(origin).pathname}`
      current = await rig(provider, [(request) => ({ raw: { status: 307, headers: { location: sent(`http://x${request.path}`) }, body: "" } }), done])
      const events = await current.run("go")
      expect(events.at(-1)).toMatchObject({ _tag: "AgentError", exitCode: 1 })
      // The redirect was followed (the body went there), without the key: fetch drops it across origins.
      expect(seen.length).toBeGreaterThan(0)
      for (const headers of seen) {
        expect(headers["x-api-key"]).toBeUndefined()
        expect(headers.authorization).toBeUndefined()
      }
    } finally {
      await elsewhere.stop(true)
    }
  })
})
