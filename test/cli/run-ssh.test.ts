// `clanka run --ssh` end to end over a real sshd on loopback: the agent and its keys stay here, the
// scripts (a sub-agent's included) run in a directory on the far side, and losing the far side in
// the middle of a run ends it with exit 3.
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { clanka, clankaTimed } from "../support/cli.ts"
import { fromSubagent, startFakeModel, type FakeRequest, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { sshdAvailable, startSshProject, type SshProject } from "../support/sshd.ts"

const available = sshdAvailable()
let host: SshProject
let server: FakeServer | undefined

beforeAll(async () => {
  if (available) host = await startSshProject("clanka-run-ssh-local-", { "README.md": "remote readme\n" })
})

afterAll(async () => {
  if (available) await host.stop()
})

afterEach(async () => {
  await server?.close()
  server = undefined
})

const MODEL = "anthropic/claude-sonnet-4-5"
// Bounded waits inside each test fail it with what was seen; this only caps the whole test.
setDefaultTimeout(60_000)

function sshArgs(): string[] {
  return ["--ssh", host.target, "--remote-bin", host.remoteBin]
}

function env(): Record<string, string> {
  return { ...host.env, ...server!.env, CLANKA_MODEL: MODEL }
}

const parse = (stdout: string) => stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
/** Each event's tag; a sub-agent's part as `SubagentPart:<its tag>`. */
const tagsOf = (events: any[]) => events.map((event) => (event._tag === "SubagentPart" ? `SubagentPart:${event.part._tag}` : event._tag))
/** A model turn that writes a script, before the script's output. */
const SCRIPT_TURN = ["ScriptStart", "ScriptDelta", "ScriptEnd", "Usage"]
const SUB_SCRIPT_TURN = SCRIPT_TURN.map((tag) => `SubagentPart:${tag}`)

/** Answers by request: the parent delegates, the sub-agent lists and writes on the far side. */
function dispatch(request: FakeRequest): FakeTurn {
  const sub = fromSubagent(request)
  const done = request.toolResults.length > 0
  if (sub && !done) {
    return {
      blocks: [
        {
          type: "execute",
          script:
            'console.log((await ls(".")).join(" "))\nawait writeFile({ path: "out/from-sub.txt", content: "sub was here" })\nawait taskComplete("wrote out/from-sub.txt")',
        },
      ],
    }
  }
  if (!done) return { blocks: [{ type: "execute", script: 'console.log("sub said: " + await delegate("write out/from-sub.txt"))' }] }
  return { blocks: [{ type: "execute", script: `await taskComplete(${JSON.stringify(request.toolResults[0]!.trim())})` }] }
}

test.skipIf(!available)("clanka run --ssh: a sub-agent's script runs in the remote directory; events in order", async () => {
  server = await startFakeModel("anthropic", Array.from({ length: 4 }, () => dispatch))
  const result = await clanka(["run", "--json", ...sshArgs(), "delegate it"], { cwd: host.local, env: env(), timeoutMs: 30_000 })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const events = parse(result.stdout)
  expect(tagsOf(events)).toEqual([
    "AgentStart",
    ...SCRIPT_TURN,
    "SubagentStart",
    ...SUB_SCRIPT_TURN,
    "SubagentPart:ScriptOutputDelta",
    "SubagentPart:ScriptOutput",
    "SubagentComplete",
    "ScriptOutputDelta",
    "ScriptOutput",
    ...SCRIPT_TURN,
    "ScriptOutput",
    "AgentFinished",
  ])
  const [start] = events
  expect(start).toMatchObject({ _tag: "AgentStart", prompt: "delegate it", provider: "anthropic", model: "claude-sonnet-4-5", directory: host.remoteDir })
  expect(start.tools).toContain("delegate")
  const sub = events[5]
  expect(sub).toEqual({ _tag: "SubagentStart", id: `${start.id}.1`, prompt: "write out/from-sub.txt", provider: "anthropic", model: "claude-sonnet-4-5" })
  expect(events.filter((event) => event._tag === "SubagentPart").every((event) => event.id === sub.id)).toBe(true)
  // The sub-agent saw the remote directory, not the local one.
  // Its output, live over ssh and then whole; the ids are the execute calls' ids.
  expect(events[10]).toEqual({ _tag: "SubagentPart", id: sub.id, part: { _tag: "ScriptOutputDelta", id: "toolu_1_0", text: "README.md\n" } })
  expect(events[11]).toEqual({ _tag: "SubagentPart", id: sub.id, part: { _tag: "ScriptOutput", output: "README.md\n" } })
  expect(events[12]).toEqual({ _tag: "SubagentComplete", id: sub.id, summary: "wrote out/from-sub.txt" })
  expect(events[13]).toEqual({ _tag: "ScriptOutputDelta", id: "toolu_0_0", text: "sub said: wrote out/from-sub.txt\n" })
  expect(events[14]).toEqual({ _tag: "ScriptOutput", output: "sub said: wrote out/from-sub.txt\n" })
  expect(events.at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "sub said: wrote out/from-sub.txt", turns: 2 })

  expect(readFileSync(join(host.remoteDir, "out/from-sub.txt"), "utf8")).toBe("sub was here")
  expect(existsSync(join(host.local, "out"))).toBe(false)
  // Every model request is made here: the parent's two and the sub-agent's one.
  expect(server.requests.map((request) => fromSubagent(request))).toEqual([false, true, false])
})

test.skipIf(!available)("clanka run --ssh: a remote script's output streams back while it runs", async () => {
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: "console.log('start'); await sleep(1500); console.log('end')" }] },
    { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] },
  ])
  const result = await clankaTimed(["run", "--json", ...sshArgs(), "go"], { cwd: host.local, env: env(), timeoutMs: 30_000 })
  expect(result.code).toBe(0)
  const events = result.stdout.map((item) => JSON.parse(item.line))
  const live = events.flatMap((event, i) => (event._tag === "ScriptOutputDelta" ? [{ ...event, i }] : []))
  expect(live.map(({ i, ...event }) => event)).toEqual([
    { _tag: "ScriptOutputDelta", id: "toolu_0_0", text: "start\n" },
    { _tag: "ScriptOutputDelta", id: "toolu_0_0", text: "end\n" },
  ])
  expect(events[live[1]!.i + 1]).toEqual({ _tag: "ScriptOutput", output: "start\nend\n" })
  expect(result.stdout[live[1]!.i]!.at - result.stdout[live[0]!.i]!.at).toBeGreaterThanOrEqual(1000)
})

/** Runs clanka and SIGKILLs the remote executor once `marker` exists in the remote directory. */
async function killRemoteWhen(marker: string, args: string[]): Promise<{ result: Awaited<ReturnType<typeof clanka>>; killedAt: number }> {
  host.forgetRemote()
  rmSync(join(host.remoteDir, marker), { force: true })
  let killedAt = 0
  const watcher = (async () => {
    const deadline = Date.now() + 20_000
    while (Date.now() < deadline && !existsSync(join(host.remoteDir, marker))) await Bun.sleep(20)
    if (!existsSync(join(host.remoteDir, marker))) return
    killedAt = Date.now()
    host.killRemote()
  })()
  const result = await clanka(args, { cwd: host.local, env: env(), timeoutMs: 30_000 })
  await watcher
  return { result, killedAt }
}

const LOST = `lost the ssh connection to clanka-test-host; check the link and run again`

test.skipIf(!available)("the far side killed in the middle of a script: exit 3, one line, AgentError last", async () => {
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: 'await writeFile({ path: "started-1", content: "" })\nawait sleep(60000)' }] },
  ])
  const { result, killedAt } = await killRemoteWhen("started-1", ["run", "--json", ...sshArgs(), "wait"])
  expect(killedAt).toBeGreaterThan(0)
  expect(Date.now() - killedAt).toBeLessThan(5000)
  expect(result.code).toBe(3)
  expect(result.stderr).toBe(`clanka: ${LOST}\n`)
  const events = parse(result.stdout)
  expect(tagsOf(events)).toEqual(["AgentStart", ...SCRIPT_TURN, "ScriptOutput", "AgentError"])
  // The script block is closed by its output so far and why it stopped.
  expect(events.at(-2)).toEqual({ _tag: "ScriptOutput", output: `[stopped: ${LOST}]`, failed: true })
  expect(events.at(-1)).toEqual({ _tag: "AgentError", message: LOST, exitCode: 3 })
})

test.skipIf(!available)("the far side killed while a sub-agent's script runs: exit 3, not a failed sub-agent", async () => {
  const subScript = 'await writeFile({ path: "started-2", content: "" })\nawait sleep(60000)'
  server = await startFakeModel("anthropic", [
    { blocks: [{ type: "execute", script: 'console.log(await delegate("wait a minute"))' }] },
    { blocks: [{ type: "execute", script: subScript }] },
  ])
  const { result, killedAt } = await killRemoteWhen("started-2", ["run", "--json", ...sshArgs(), "delegate"])
  expect(killedAt).toBeGreaterThan(0)
  expect(result.code).toBe(3)
  expect(result.stderr).toBe(`clanka: ${LOST}\n`)
  const events = parse(result.stdout)
  expect(events.at(-1)).toEqual({ _tag: "AgentError", message: LOST, exitCode: 3 })
  // The parent's script block is closed by why it stopped.
  expect(events.filter((event) => event._tag === "ScriptOutput")).toEqual([{ _tag: "ScriptOutput", output: `[stopped: ${LOST}]`, failed: true }])
  // Whether the sub-agent reports its failure (its ScriptOutput, its SubagentComplete) before the
  // parent notices the loss is a race; either way the parent ends the run with the executor's
  // loss, not with a failed delegate().
  const racing = ["SubagentComplete", "ScriptOutput", "SubagentPart:ScriptOutput"]
  expect(tagsOf(events).filter((tag) => !racing.includes(tag))).toEqual([
    "AgentStart",
    ...SCRIPT_TURN,
    "SubagentStart",
    ...SUB_SCRIPT_TURN,
    "AgentError",
  ])
})
