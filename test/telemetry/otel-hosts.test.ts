// One trace across hosts: a run over two --ssh hosts (the loopback sshd, directories "web" and
// "db") whose agent delegates to a sub-agent on db. The tool calls are timed on each host's
// executor and exported by the agent: every span is in the trace TRACEPARENT names, each under
// the span that caused it, each tool call with its host.
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { fromSubagent, startFakeModel, type FakeRequest, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { type OtlpReceiver, spanTree, startOtlpReceiver } from "../support/otlp-receiver.ts"
import { sshdAvailable, startSshProject, type SshProject } from "../support/sshd.ts"

const available = sshdAvailable()
let host: SshProject
let server: FakeServer | undefined
let otlp: OtlpReceiver | undefined
setDefaultTimeout(60_000)

beforeAll(async () => {
  if (!available) return
  host = await startSshProject("clanka-otel-hosts-", {})
  for (const name of ["web", "db"]) {
    mkdirSync(join(host.dir, name))
    writeFileSync(join(host.dir, name, `${name}.txt`), `${name}\n`)
  }
})

afterAll(async () => {
  if (available) await host.stop()
})

afterEach(async () => {
  await server?.close()
  await otlp?.close()
  server = otlp = undefined
})

/** The agent on web lists the hosts and delegates to db; the sub-agent there lists and writes. */
function dispatch(request: FakeRequest): FakeTurn {
  const done = request.toolResults.length > 0
  if (fromSubagent(request)) {
    if (done) return { blocks: [{ type: "text", text: "done" }] }
    return { blocks: [{ type: "execute", script: 'console.log(await ls("."))\nawait writeFile({ path: "from-sub.txt", content: "db sub" })\nawait taskComplete("wrote on db")' }] }
  }
  if (done) return { blocks: [{ type: "execute", script: 'await taskComplete("all done")' }] }
  return { blocks: [{ type: "execute", script: 'console.log(JSON.stringify(await hosts()))\nconsole.log(await delegate("write from-sub.txt", { host: "db" }))' }] }
}

test.skipIf(!available)("a run over two --ssh hosts with a sub-agent on the second is one trace, each tool call with its host", async () => {
  server = await startFakeModel("anthropic", Array.from({ length: 3 }, () => dispatch))
  otlp = await startOtlpReceiver()
  const args = ["run", "--json", "--ssh", `web=${host.alias}:${join(host.dir, "web")}`, "--ssh", `db=${host.alias}:${join(host.dir, "db")}`, "--remote-bin", host.remoteBin, "go"]
  const result = await clanka(args, {
    cwd: host.local,
    env: {
      ...host.env,
      ...server.env,
      CLANKA_MODEL: "anthropic/claude-sonnet-4-5",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      TRACEPARENT: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    },
    timeoutMs: 40_000,
  })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const host_ = (span: { attributes: Record<string, unknown> }) => (span.attributes["clanka.host"] === undefined ? "" : ` @${span.attributes["clanka.host"]}`)
  expect(spanTree(otlp.spans, (span) => `${span.name}${host_(span)}`)).toEqual([
    "invoke_agent clanka @web",
    "  chat claude-sonnet-4-5",
    "  execute_tool execute @web",
    "    execute_tool hosts @web",
    "    execute_tool delegate @web",
    "      invoke_agent clanka-subagent @db",
    "        chat claude-sonnet-4-5",
    "        execute_tool execute @db",
    "          execute_tool ls @db",
    "          execute_tool writeFile @db",
    "          execute_tool taskComplete @db",
    "  chat claude-sonnet-4-5",
    "  execute_tool execute @web",
    "    execute_tool taskComplete @web",
  ])
  for (const span of otlp.spans) expect(span.traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736")
  const [root] = otlp.spans.filter((span) => span.name === "invoke_agent clanka")
  expect(root!.parentSpanId).toBe("00f067aa0ba902b7")
  expect(root!.attributes["clanka.executor.kind"]).toBe("ssh")
  // The tool calls were timed by the executors on the hosts (the loopback sshd: this machine).
  for (const span of otlp.spans.filter((span) => span.name.startsWith("execute_tool ") && span.name !== "execute_tool execute")) {
    expect(span.attributes["host.name"]).toBe(hostname())
    const script = otlp.spans.find((other) => other.spanId === span.parentSpanId)!
    expect(script.name).toBe("execute_tool execute")
    expect(span.startNs >= script.startNs && span.endNs <= script.endNs).toBe(true)
  }
})
