// `clanka acp` against an editor that misbehaves: requests that race, out of order or malformed.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { acp, startAcp, type AcpEditor } from "../support/acp-client.ts"
import { startFakeModel, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

setDefaultTimeout(60_000)

const root = temporaryDirectory("clanka-acp-hostile-")
const home = join(root, "state")
const workspace = join(root, "project")
mkdirSync(workspace)

let server: FakeServer | undefined
let editor: AcpEditor | undefined
afterEach(async () => {
  await editor?.close()
  editor = undefined
  await server?.close()
  server = undefined
})

async function start(turns: FakeTurn[], args = ["--sandbox", "off"]): Promise<AcpEditor> {
  server = await startFakeModel("anthropic", turns)
  editor = await startAcp(args, { env: { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_HOME: home, XDG_CONFIG_HOME: join(root, "xdg") } })
  await editor.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION })
  return editor
}

const text = (value: string): acp.ContentBlock => ({ type: "text", text: value })

test("two session/loads of one session at once: one opens it, the other is refused (one writer per transcript)", async () => {
  await start([{ blocks: [{ type: "text", text: "First." }] }, { blocks: [{ type: "text", text: "Second." }] }])
  const { sessionId } = await editor!.agent.request(acp.methods.agent.session.new, { cwd: workspace, mcpServers: [] })
  await editor!.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [text("hi")] })
  await editor!.agent.request(acp.methods.agent.session.close, { sessionId })
  const load = (id: string) => editor!.agent.request(acp.methods.agent.session.load, { sessionId: id, cwd: workspace, mcpServers: [] })
  const outcomes = await Promise.allSettled([load(sessionId), load(sessionId.slice(0, 8))])
  expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"])
  const refused = outcomes.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult
  expect(refused.reason.message).toContain(`session ${sessionId} is `)
  // The one that opened it goes on.
  const opened = outcomes[0]!.status === "fulfilled" ? sessionId : sessionId.slice(0, 8)
  expect(await editor!.agent.request(acp.methods.agent.session.prompt, { sessionId: opened, prompt: [text("again")] })).toEqual({ stopReason: "end_turn" })
})

/** The processes whose command line names `path` (an executor started for that workspace). */
function processesNaming(path: string): string[] {
  const ps = Bun.spawnSync(["ps", "-eo", "args"]).stdout.toString()
  return ps.split("\n").filter((line) => line.includes(path) && !line.includes("ps -eo"))
}

test("the editor closes stdin while a session/new is starting: clanka exits 0 and leaves no executor behind", async () => {
  const place = join(root, "closing")
  mkdirSync(place)
  // In the OS sandbox where there is one (its processes are what must not be left).
  await start([])
  const opening = editor!.agent.request(acp.methods.agent.session.new, { cwd: place, mcpServers: [] }).catch(() => undefined)
  // clanka has read the request and is starting the session's executor.
  await Bun.sleep(100)
  const closing = editor!
  editor = undefined
  expect(await closing.close()).toBe(0)
  await opening
  expect(processesNaming(place)).toEqual([])
})
