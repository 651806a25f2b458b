// OpenTelemetry end to end: `clanka run` with OTEL_* set exports real OTLP/HTTP to a receiver,
// and the spans, their tree and their attributes are what a trace backend would show.
import { afterEach, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { VERSION } from "../../src/version.ts"
import { BUN, clanka, MAIN, ROOT } from "../support/cli.ts"
import { fromSubagent, startFakeModel, type FakeRequest, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { type OtlpReceiver, type ReceivedSpan, spanTree, startOtlpReceiver, startUnreachableCollector } from "../support/otlp-receiver.ts"
import { temporaryDirectory } from "../support/temp.ts"

const dir = temporaryDirectory("clanka-otel-")
writeFileSync(join(dir, "a.txt"), "alpha\n")
const MODEL = "anthropic/claude-sonnet-4-5"
let server: FakeServer | undefined
let otlp: OtlpReceiver | undefined

afterEach(async () => {
  await server?.close()
  await otlp?.close()
  server = otlp = undefined
})

async function start(turns: FakeTurn[]): Promise<{ server: FakeServer; otlp: OtlpReceiver }> {
  server = await startFakeModel("anthropic", turns)
  otlp = await startOtlpReceiver()
  return { server, otlp }
}

const run = (args: string[], env: Record<string, string>) => clanka(["run", "--json", "-C", dir, ...args], { env: { CLANKA_MODEL: MODEL, ...env }, timeoutMs: 30_000 })
const events = (stdout: string) => stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
const byName = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name)

/** The agent reads a file and delegates; the sub-agent writes one; the agent finishes. */
function delegating(request: FakeRequest): FakeTurn {
  const done = request.toolResults.length > 0
  if (fromSubagent(request)) {
    if (done) return { blocks: [{ type: "text", text: "done" }] }
    return { blocks: [{ type: "execute", script: 'await writeFile({ path: "sub.txt", content: "sub" })\nawait taskComplete("wrote sub.txt")' }] }
  }
  if (done) return { blocks: [{ type: "execute", script: 'await taskComplete("all done")' }] }
  return {
    blocks: [{ type: "execute", script: 'console.log(await readFile({ path: "a.txt" }))\nconsole.log(await delegate("write sub.txt"))' }],
    usage: { input: 100, output: 20, cacheRead: 50, cacheWrite: 10 },
  }
}

const DELEGATING_TREE = [
  "invoke_agent clanka",
  "  chat claude-sonnet-4-5",
  "  execute_tool execute",
  "    execute_tool readFile",
  "    execute_tool delegate",
  "      invoke_agent clanka-subagent",
  "        chat claude-sonnet-4-5",
  "        execute_tool execute",
  "          execute_tool writeFile",
  "          execute_tool taskComplete",
  "  chat claude-sonnet-4-5",
  "  execute_tool execute",
  "    execute_tool taskComplete",
]

for (const [protocol, contentType] of [
  ["http/protobuf", "application/x-protobuf"],
  ["http/json", "application/json"],
] as const) {
  test(`a run with a sub-agent is one trace: run, model requests, scripts and tool calls (${protocol})`, async () => {
    const { server, otlp } = await start(Array.from({ length: 3 }, () => delegating))
    const result = await run(["go"], { ...server.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const [agentStart] = events(result.stdout)
    const finished = events(result.stdout).at(-1)
    expect(finished._tag).toBe("AgentFinished")
    expect(new Set(otlp.requests.map((request) => request.contentType))).toEqual(new Set([contentType]))
    expect(otlp.requests.map((request) => request.path).sort()).toEqual(["/v1/metrics", "/v1/traces"])

    const spans = otlp.spans
    expect(spanTree(spans)).toEqual(DELEGATING_TREE)
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1)
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length)
    const [root] = byName(spans, "invoke_agent clanka")
    expect(root!.parentSpanId).toBe("")
    expect(root!.resource).toMatchObject({ "service.name": "clanka", "service.version": VERSION })
    expect(root!.scope).toBe("clanka")
    expect(root!.attributes).toEqual({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "clanka",
      "gen_ai.agent.id": agentStart.id,
      "gen_ai.conversation.id": agentStart.sessionId,
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-sonnet-4-5",
      "clanka.executor.kind": "local",
      "clanka.sandbox.mode": agentStart.sandbox.mode,
      "clanka.sandbox.backend": agentStart.sandbox.backend,
      "clanka.sandbox.network": false,
      "clanka.turns": 2,
      "gen_ai.usage.input_tokens": finished.usage.inputTokens + finished.usage.cacheReadTokens + finished.usage.cacheWriteTokens,
      "gen_ai.usage.output_tokens": finished.usage.outputTokens,
      "gen_ai.usage.cache_read.input_tokens": 50,
      "gen_ai.usage.cache_creation.input_tokens": 10,
      "clanka.cost.usd": finished.usage.costUsd,
    })
    expect(root!.status.code).toBe(0)

    const [firstChat] = byName(spans, "chat claude-sonnet-4-5").sort((a, b) => Number(a.startNs - b.startNs))
    expect(firstChat!.kind).toBe(3) // client
    expect(firstChat!.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-sonnet-4-5",
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "gen_ai.usage.input_tokens": 160,
      "gen_ai.usage.output_tokens": 20,
      "gen_ai.usage.cache_read.input_tokens": 50,
      "gen_ai.usage.cache_creation.input_tokens": 10,
      "clanka.cost.usd": (100 * 3 + 20 * 15 + 50 * 0.3 + 10 * 3.75) / 1e6,
      "clanka.retries": 0,
    })
    const [readFile] = byName(spans, "execute_tool readFile")
    expect(readFile!.attributes).toEqual({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "readFile", "gen_ai.tool.type": "function", "host.name": hostname() })
    const [sub] = byName(spans, "invoke_agent clanka-subagent")
    expect(sub!.attributes).toMatchObject({ "gen_ai.agent.name": "clanka-subagent", "gen_ai.conversation.id": agentStart.sessionId, "gen_ai.request.model": "claude-sonnet-4-5" })
    // Each span lies within its parent's time.
    for (const span of spans) {
      const parent = spans.find((other) => other.spanId === span.parentSpanId)
      expect(span.endNs).toBeGreaterThanOrEqual(span.startNs)
      if (parent) expect([span.name, span.startNs >= parent.startNs && span.endNs <= parent.endNs]).toEqual([span.name, true])
    }

    const metric = (name: string) => otlp.metrics.find((each) => each.name === name)
    expect(metric("gen_ai.client.token.usage")).toMatchObject({ kind: "histogram", unit: "{token}" })
    const tokens = metric("gen_ai.client.token.usage")!.points
    expect(tokens.find((point) => point.attributes["gen_ai.token.type"] === "input")).toMatchObject({ count: 3, sum: finished.usage.inputTokens + 60 })
    expect(tokens.find((point) => point.attributes["gen_ai.token.type"] === "output")).toMatchObject({ count: 3, sum: finished.usage.outputTokens })
    const tools = metric("gen_ai.execute_tool.duration")!.points
    expect(Object.fromEntries(tools.map((point) => [point.attributes["gen_ai.tool.name"], point.count]))).toEqual({ execute: 3, readFile: 1, delegate: 1, writeFile: 1, taskComplete: 2 })
    expect(metric("clanka.cost")!.points).toEqual([
      { attributes: { "gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic", "gen_ai.request.model": "claude-sonnet-4-5" }, value: expect.closeTo(finished.usage.costUsd, 5) },
    ])
    expect(metric("gen_ai.client.operation.duration")!.points[0]!.count).toBe(3)
    expect(metric("gen_ai.invoke_agent.duration")!.points[0]!.count).toBe(1)
  })
}

test("TRACEPARENT makes the run a child of that trace; service name, resource attributes and headers apply", async () => {
  const { server, otlp } = await start([{ blocks: [{ type: "execute", script: 'await taskComplete("ok")' }] }])
  const result = await run(["go"], {
    ...server.env,
    // Only a traces endpoint: no metrics are sent.
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/v1/traces`,
    TRACEPARENT: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    TRACESTATE: "ci=1",
    OTEL_SERVICE_NAME: "nightly-fixer",
    OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=ci,team=infra",
    OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer s3cret,x-tenant=42",
  })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  expect(otlp.requests.map((request) => request.path)).toEqual(["/v1/traces"])
  expect(otlp.requests[0]!.headers).toMatchObject({ authorization: "Bearer s3cret", "x-tenant": "42" })
  expect(spanTree(otlp.spans)).toEqual(["invoke_agent clanka", "  chat claude-sonnet-4-5", "  execute_tool execute", "    execute_tool taskComplete"])
  for (const span of otlp.spans) {
    expect(span.traceId).toBe("0af7651916cd43dd8448eb211c80319c")
    expect(span.traceState).toBe("ci=1")
  }
  const [root] = byName(otlp.spans, "invoke_agent clanka")
  expect(root!.parentSpanId).toBe("b7ad6b7169203331")
  expect(root!.resource).toMatchObject({ "service.name": "nightly-fixer", "deployment.environment": "ci", team: "infra" })
})

test("errors set span status: a failed request and its retry, a failing script and tool, a run that fails (exit 1)", async () => {
  const { server, otlp } = await start([
    { error: { status: 529 } },
    { blocks: [{ type: "execute", script: 'console.log("start")\nawait ls("missing")' }] },
    { error: { status: 400, message: "bad request" } },
  ])
  const result = await run(["go"], { ...server.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url })
  expect(result.code).toBe(1)
  const error = events(result.stdout).at(-1)
  expect(error._tag).toBe("AgentError")
  const spans = otlp.spans
  expect(spanTree(spans, (span) => `${span.name} ${span.status.code}`)).toEqual([
    "invoke_agent clanka 2",
    "  chat claude-sonnet-4-5 2",
    "  chat claude-sonnet-4-5 0",
    "  execute_tool execute 2",
    "    execute_tool ls 2",
    "  chat claude-sonnet-4-5 2",
  ])
  const [root] = byName(spans, "invoke_agent clanka")
  expect(root!.status.message).toBe(error.message)
  expect(root!.attributes).toMatchObject({ "error.type": "failed", "clanka.exit_code": 1 })
  const chats = byName(spans, "chat claude-sonnet-4-5").sort((a, b) => Number(a.startNs - b.startNs))
  expect(chats.map((chat) => [chat.attributes["error.type"], chat.attributes["clanka.retries"]])).toEqual([
    ["529", 0],
    [undefined, 1],
    ["400", 0],
  ])
  const [script] = byName(spans, "execute_tool execute")
  expect(script!.status.message).toContain("missing")
  expect(script!.attributes["error.type"]).toBe("ScriptError")
  expect(byName(spans, "execute_tool ls")[0]!.status.message).toContain("missing")
})

test("an interrupted run (exit 130) still exports its spans before it exits", async () => {
  const { server, otlp } = await start([{ stall: { blocks: [] } }])
  const child = Bun.spawn([BUN, MAIN, "run", "--json", "-C", dir, "go"], {
    cwd: ROOT,
    env: { ...process.env, ...server.env, CLANKA_MODEL: MODEL, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 20_000,
  })
  while (server.requests.length === 0) await Bun.sleep(20)
  child.kill("SIGINT")
  expect(await child.exited).toBe(130)
  expect(spanTree(otlp.spans, (span) => `${span.name} ${span.status.code}`)).toEqual(["invoke_agent clanka 2", "  chat claude-sonnet-4-5 0"])
  expect(byName(otlp.spans, "invoke_agent clanka")[0]!.attributes).toMatchObject({ "error.type": "interrupted", "clanka.exit_code": 130 })
})

test("an executor without trace contexts still works: its scripts are spans, its tool calls are not", async () => {
  const { server, otlp } = await start([{ blocks: [{ type: "execute", script: 'console.log(await readFile({ path: "a.txt" }))\nawait taskComplete("ok")' }] }])
  const old = `${BUN} ${join(ROOT, "test/support/old-executor.ts")} ${dir}`
  const result = await clanka(["run", "--json", "--executor", old, "go"], { env: { CLANKA_MODEL: MODEL, ...server.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url }, timeoutMs: 30_000 })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  expect(events(result.stdout).find((event) => event._tag === "ScriptOutput").output).toBe("alpha\n\n")
  expect(spanTree(otlp.spans)).toEqual(["invoke_agent clanka", "  chat claude-sonnet-4-5", "  execute_tool execute"])
  expect(byName(otlp.spans, "invoke_agent clanka")[0]!.attributes["clanka.executor.kind"]).toBe("command")
})

test("OTEL_SDK_DISABLED=true wins over an endpoint: nothing is exported", async () => {
  const { server, otlp } = await start([{ blocks: [{ type: "execute", script: 'await taskComplete("ok")' }] }])
  const result = await run(["go"], { ...server.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SDK_DISABLED: "true" })
  expect(result.code).toBe(0)
  expect(otlp.requests).toEqual([])
})

test("a collector that cannot be reached costs one warning line and at most a few seconds, not the run", async () => {
  const { server, otlp: unused } = await start([{ blocks: [{ type: "execute", script: 'await taskComplete("ok")' }] }])
  await unused.close()
  const otlp = startUnreachableCollector()
  const started = Date.now()
  const result = await run(["go"], { ...server.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url })
  expect(result.code).toBe(0)
  expect(events(result.stdout).at(-1)._tag).toBe("AgentFinished")
  expect(result.stderr).toBe(`clanka: OpenTelemetry export to ${otlp.url} did not finish within 3 s; the spans and metrics not yet sent are dropped\n`)
  expect(Date.now() - started).toBeLessThan(8000)
  // A token in the endpoint (user:token@, a query) stays out of the line (a CI job's log).
  const { host } = new URL(otlp.url)
  await server.close()
  const again = await start([{ blocks: [{ type: "execute", script: 'await taskComplete("ok")' }] }])
  const secret = await run(["go"], { ...again.server.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://otel:tok-SECRET@${host}/v1?api_key=q-SECRET` })
  expect(secret.stderr).toBe(`clanka: OpenTelemetry export to http://…@${host}/v1?… did not finish within 3 s; the spans and metrics not yet sent are dropped\n`)
  otlp.close()
})

test("attack: an API that quotes the key in its error does not carry the key to the collector; the spans say [redacted]", async () => {
  const key = "sk-ant-test-SECRETKEY-0123456789"
  const { server, otlp } = await start([
    { error: { status: 529, message: `overloaded, key ${key}` } },
    { error: { status: 401, message: `invalid x-api-key ${key}` } },
  ])
  const result = await run(["go"], { ...server.env, ANTHROPIC_API_KEY: key, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url })
  expect(result.code).toBe(1)
  expect(spanTree(otlp.spans)).toEqual(["invoke_agent clanka", "  chat claude-sonnet-4-5", "  chat claude-sonnet-4-5"])
  const exported = JSON.stringify(otlp.spans, (_, value) => (typeof value === "bigint" ? String(value) : value))
  expect(exported).not.toContain("SECRETKEY")
  const [root] = byName(otlp.spans, "invoke_agent clanka")
  expect(root!.status.message).toContain("invalid x-api-key [redacted]")
  const messages = byName(otlp.spans, "chat claude-sonnet-4-5").map((span) => span.status.message)
  expect(messages).toContainEqual(expect.stringContaining("overloaded, key [redacted]"))
})

test("attack: a collector's answer cannot drive the terminal: control characters in its error are shown as ^[ in the one warning line", async () => {
  const { server } = await start([{ blocks: [{ type: "execute", script: 'await taskComplete("ok")' }] }])
  const { createServer } = await import("node:net")
  const collector = createServer((socket) =>
    socket.once("data", () => socket.end("HTTP/1.1 500 Bad\x1b]0;owned\x07\x1b[2J\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")),
  )
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
  try {
    const { port } = collector.address() as { port: number }
    const result = await run(["go"], { ...server.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` })
    expect(result.code).toBe(0)
    expect(result.stderr).not.toContain("\x1b")
    expect(result.stderr).toMatch(/^clanka: OpenTelemetry export failed: .*Bad\^\[\]0;owned\^G\^\[\[2J.*\n$/)
  } finally {
    collector.close()
  }
})

test("OTEL_EXPORTER_OTLP_PROTOCOL=grpc is one line, and a collector that then fails still gets its own line", async () => {
  const { server, otlp } = await start([{ blocks: [{ type: "execute", script: 'await taskComplete("ok")' }] }])
  await otlp.close()
  const result = await run(["go"], { ...server.env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })
  expect(result.code).toBe(0)
  expect(result.stderr).toBe(
    "clanka: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; exporting with http/protobuf (or set http/json)\n" +
      `clanka: OpenTelemetry export to ${otlp.url} did not finish within 3 s; the spans and metrics not yet sent are dropped\n`,
  )
})
