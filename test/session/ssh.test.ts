// A session run over --ssh (a real sshd on loopback) resumes with its history on the agent's side
// and its executor reconnected on the far side.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { join } from "node:path"
import { sshdAvailable, startSshProject, type SshProject } from "../support/sshd.ts"
import { temporaryDirectory } from "../support/temp.ts"
import { clanka, events, finish, serve } from "./helpers.ts"

setDefaultTimeout(60_000)
const available = sshdAvailable()
let host: SshProject
const root = temporaryDirectory("clanka-session-ssh-")

beforeAll(async () => {
  if (available) host = await startSshProject("clanka-session-ssh-local-", { "notes.txt": "far side\n" })
})
afterAll(async () => {
  if (available) await host.stop()
})

test.skipIf(!available)("--resume of an --ssh session reconnects to the same host and directory; a --remote-bin of the file is run only when given again", async () => {
  const served = await serve([{ blocks: [{ type: "execute", script: 'console.log(await readFile({ path: "notes.txt" }))' }] }, finish("read it"), { blocks: [{ type: "execute", script: 'await writeFile({ path: "second.txt", content: "again" }); await taskComplete("wrote")' }] }], join(root, "home"))
  try {
    const env = { ...host.env, ...served.env }
    const first = await clanka(["run", "--json", "--ssh", host.target, "--remote-bin", host.remoteBin, "read the notes"], { env, cwd: root })
    expect(first.code).toBe(0)
    const id = events(first)[0].sessionId
    const listed = events(await clanka(["sessions", "--json"], { env, cwd: root }))
    expect(listed[0]).toMatchObject({ id, executor: { kind: "ssh", target: host.target, remoteBin: host.remoteBin } })

    // A program named in the file is not run on its word: --remote-bin is given again (or exit 2).
    const refused = await clanka(["run", "--json", "--resume", id, "write a second file"], { env, cwd: root })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toBe(`clanka: session ${id.slice(0, 8)} ran clanka on ${host.target} as --remote-bin ${JSON.stringify(host.remoteBin)}; to run that program there again, pass it: --remote-bin ${JSON.stringify(host.remoteBin)}\n`)
    expect(served.server.requests).toHaveLength(2)
    // No executor flags but that one: the session's own ssh target is used again.
    const second = await clanka(["run", "--json", "--resume", id, "--remote-bin", host.remoteBin, "write a second file"], { env, cwd: root })
    expect(second.stderr).toBe("")
    expect(second.code).toBe(0)
    expect(events(second)[0]).toMatchObject({ sessionId: id, resumedFrom: id, directory: events(first)[0].directory })
    expect(served.server.requests[2]!.body.messages[2].content[0].content).toBe("far side\n\n")
    const check = await clanka(["exec", "--ssh", host.target, "--remote-bin", host.remoteBin, "-e", 'console.log(await readFile({ path: "second.txt" }))'], { env, cwd: root })
    expect(check.stdout).toBe("again\n")
  } finally {
    await served.server.close()
  }
})
