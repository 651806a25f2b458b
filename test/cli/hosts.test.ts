// Several --ssh hosts at once, end to end over the loopback sshd with two directories on the far
// side, "web" and "db": exec runs the same script on both (prefixed lines, --json results, the
// worst exit code); run drives web and reaches db through hosts() and delegate(task, { host }).
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { fromSubagent, startFakeModel, type FakeRequest, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { sshdAvailable, startSshProject, type SshProject } from "../support/sshd.ts"

const available = sshdAvailable()
let host: SshProject
let server: FakeServer | undefined
let web: string
let db: string
setDefaultTimeout(60_000)

beforeAll(async () => {
  if (!available) return
  host = await startSshProject("clanka-hosts-local-", {})
  web = join(host.dir, "web")
  db = join(host.dir, "db")
  mkdirSync(web)
  mkdirSync(db)
  writeFileSync(join(web, "web.txt"), "web\n")
  writeFileSync(join(db, "db.txt"), "db\n")
})

afterAll(async () => {
  if (available) await host.stop()
})

afterEach(async () => {
  await server?.close()
  server = undefined
  for (const dir of [web, db]) for (const name of ["seen.txt", "from-sub.txt"]) rmSync(join(dir, name), { force: true })
})

const both = () => ["--ssh", `web=${host.alias}:${web}`, "--ssh", `db=${host.alias}:${db}`, "--remote-bin", host.remoteBin]
const run = (args: string[], env: Record<string, string> = {}) => clanka(args, { cwd: host.local, env: { ...host.env, ...env }, timeoutMs: 40_000 })

test.skipIf(!available)("exec on two hosts runs the script on both at once; each line is prefixed with its host", async () => {
  const script = 'const files = await ls(".")\nconsole.log("first")\nconsole.log(files.join(" "))\nawait writeFile({ path: "seen.txt", content: files.join(",") })\nconsole.log("last")'
  const result = await run(["exec", ...both(), "-e", script])
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const lines = result.stdout.trimEnd().split("\n")
  // Interleaved between hosts, in order within each.
  expect(lines.filter((line) => line.startsWith("web: "))).toEqual(["web: first", "web: web.txt", "web: last"])
  expect(lines.filter((line) => line.startsWith("db: "))).toEqual(["db: first", "db: db.txt", "db: last"])
  expect(lines).toHaveLength(6)
  expect(readFileSync(join(web, "seen.txt"), "utf8")).toBe("web.txt")
  expect(readFileSync(join(db, "seen.txt"), "utf8")).toBe("db.txt")
})

test.skipIf(!available)("exec --json: one result per host; the exit code is the worst one", async () => {
  const script = 'const files = await ls(".")\nconsole.log(files.join(" "))\nif (files.includes("db.txt")) throw new Error("no db here")'
  const result = await run(["exec", "--json", ...both(), "-e", script])
  expect(result.code).toBe(1)
  expect(result.stderr).toBe("")
  const results = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line)).sort((a, b) => a.host.localeCompare(b.host))
  expect(results).toEqual([
    {
      host: "db",
      ssh: `${host.alias}:${db}`,
      exitCode: 1,
      output: "db.txt\n",
      error: "the script failed: Error: no db here (line 3)",
      taskComplete: null,
      durationMs: expect.any(Number),
    },
    { host: "web", ssh: `${host.alias}:${web}`, exitCode: 0, output: "web.txt\n", error: null, taskComplete: null, durationMs: expect.any(Number) },
  ])
})

test.skipIf(!available)("a host that cannot be reached fails alone: the others run, the exit code is 3", async () => {
  const result = await run(["exec", "--ssh", `web=${host.alias}:${web}`, "--ssh", `down=${host.downAlias}:/tmp`, "--remote-bin", host.remoteBin, "-e", 'console.log("up")'])
  expect(result.code).toBe(3)
  expect(result.stdout).toBe("web: up\n")
  expect(result.stderr).toMatch(new RegExp(`^clanka: down: cannot connect to ${host.downAlias} with ssh: .*Connection refused; check that \`ssh ${host.downAlias}\` works\\n$`))
})

test.skipIf(!available)("hosts must have different names; commands of one executor take one host", async () => {
  expect(await run(["exec", "--ssh", `${host.alias}:${web}`, "--ssh", `${host.alias}:${db}`, "-e", "1"])).toEqual({
    code: 2,
    stdout: "",
    stderr: `clanka: two --ssh hosts are named "${host.alias}"; name them apart: --ssh NAME=${host.alias}:${db}\n`,
  })
  expect(await run(["exec", ...both(), "--executor", "cat", "-e", "1"])).toEqual({
    code: 2,
    stdout: "",
    stderr: "clanka: --executor and --ssh both choose the executor; pass only one of them\n",
  })
  expect(await run(["tool", ...both(), "ls", "."])).toEqual({
    code: 2,
    stdout: "",
    stderr: "clanka: several --ssh hosts work with clanka run and clanka exec; give this command one\n",
  })
})

/** The agent on web lists the hosts, fails to reach an unknown one, and delegates to db. */
function dispatch(request: FakeRequest): FakeTurn {
  const done = request.toolResults.length > 0
  if (fromSubagent(request)) {
    if (done) return { blocks: [{ type: "text", text: "done" }] }
    const script = 'console.log((await ls(".")).join(" "))\nawait writeFile({ path: "from-sub.txt", content: "db sub" })\nawait taskComplete("wrote from-sub.txt on db")'
    return { blocks: [{ type: "execute", script }] }
  }
  if (done) return { blocks: [{ type: "execute", script: `await taskComplete(${JSON.stringify(request.toolResults[0]!.trim())})` }] }
  const script = `console.log(JSON.stringify(await hosts()))
await delegate("x", { host: "nope" }).catch((error) => console.log(error.message))
console.log(await delegate("write from-sub.txt", { host: "db" }))`
  return { blocks: [{ type: "execute", script }] }
}

test.skipIf(!available)("run on two hosts: scripts run on the first; delegate(task, { host }) runs a sub-agent on the other", async () => {
  server = await startFakeModel("anthropic", Array.from({ length: 3 }, () => dispatch))
  const result = await run(["run", "--json", ...both(), "look around"], { ...server.env, CLANKA_MODEL: "anthropic/claude-sonnet-4-5" })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
  const start = events[0]
  expect(start).toMatchObject({ _tag: "AgentStart", directory: web })
  expect(events.filter((event) => event._tag === "SubagentStart")).toEqual([
    { _tag: "SubagentStart", id: `${start.id}.1`, prompt: "write from-sub.txt", provider: "anthropic", model: "claude-sonnet-4-5", host: "db" },
  ])
  // The sub-agent's script ran in db's directory.
  expect(events).toContainEqual({ _tag: "SubagentPart", id: `${start.id}.1`, part: { _tag: "ScriptOutput", output: "db.txt\n" } })
  expect(events.find((event) => event._tag === "ScriptOutput")).toEqual({
    _tag: "ScriptOutput",
    output: [
      JSON.stringify([
        { name: "web", directory: web, current: true },
        { name: "db", directory: db, current: false },
      ]),
      'delegate: no host "nope" in this run; its hosts are web, db',
      "wrote from-sub.txt on db",
      "",
    ].join("\n"),
  })
  expect(readFileSync(join(db, "from-sub.txt"), "utf8")).toBe("db sub")
  expect(existsSync(join(web, "from-sub.txt"))).toBe(false)
  // The agent is told about the hosts; the sub-agent where it runs.
  const [parent, sub] = server.requests
  expect(parent!.system).toContain(`Hosts: this run spans several machines. Your scripts run on "web"`)
  expect(parent!.system).toContain(`- web: ${web} (your scripts run here)\n- db: ${db}\n`)
  expect(parent!.system).toContain("declare function delegate(task: string, options?: { host?: string }): Promise<string>")
  expect(parent!.system).toContain("declare function hosts(): Promise<")
  expect(sub!.system).toContain(`You run on the host "db" of a run over several hosts.`)
  expect(sub!.system).toContain(`Working directory: ${db}`)
})

test.skipIf(!available)("one host: hosts() and delegate's host are not declared; the system prompt has no hosts section", async () => {
  server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script: 'await taskComplete("ok")' }] }])
  const result = await run(["run", "--json", "--ssh", `web=${host.alias}:${web}`, "--remote-bin", host.remoteBin, "go"], {
    ...server.env,
    CLANKA_MODEL: "anthropic/claude-sonnet-4-5",
  })
  expect(result.code).toBe(0)
  const system = server.requests[0]!.system
  expect(system).not.toContain("hosts")
  expect(system).toContain("declare function delegate(task: string): Promise<string>")
})
