// `clanka acp --ssh`: the editor drives a far host over a real sshd on loopback. The editor's
// session is local (its cwd), the scripts run in the remote directory, and the model's key stays
// here.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { acp, startAcp } from "../support/acp-client.ts"
import { startFakeModel } from "../support/fake-model.ts"
import { sshdAvailable, startSshProject, type SshProject } from "../support/sshd.ts"
import { temporaryDirectory } from "../support/temp.ts"

setDefaultTimeout(60_000)
const available = sshdAvailable()
let host: SshProject
const home = temporaryDirectory("clanka-acp-ssh-")

beforeAll(async () => {
  if (available) host = await startSshProject("clanka-acp-ssh-local-", { "README.md": "remote readme\n" })
})

afterAll(async () => {
  if (available) await host.stop()
})

test.skipIf(!available)("a session's scripts run on the --ssh host's directory; the session records the host", async () => {
  const script = 'console.log(await readFile({ path: "README.md" }), (await ls(".")).join(" "))'
  const server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script }] }, { blocks: [{ type: "text", text: "Remote." }] }])
  const editor = await startAcp(["--ssh", host.target, "--remote-bin", host.remoteBin], {
    env: { ...host.env, ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5", CLANKA_HOME: home },
  })
  try {
    await editor.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION })
    const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, { cwd: host.local, mcpServers: [] })
    expect(await editor.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "what is there?" }] })).toEqual({ stopReason: "end_turn" })
    expect(editor.updates(sessionId).findLast((update) => update.sessionUpdate === "tool_call_update")).toMatchObject({
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "remote readme\n README.md\n" } }],
    })
    const header = JSON.parse(readFileSync(join(home, "sessions", `${sessionId}.jsonl`), "utf8").split("\n")[0]!)
    expect(header).toMatchObject({ executor: { kind: "ssh", target: host.target }, directory: host.remoteDir })
  } finally {
    expect(await editor.close()).toBe(0)
    await server.close()
  }
})
