// Hooks from the config: the user's shell commands run on the agent's side around a run and its
// scripts, through the real CLI and a fake model. A preExecute hook exiting 2 blocks the script;
// an untrusted project's hooks never run.
import { afterAll, afterEach, beforeEach, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { startFakeModel, type FakeRequest, type FakeServer, type FakeTurn } from "../support/fake-model.ts"

setDefaultTimeout(60_000)

// Outside /tmp, whose sandbox copy is private: what a script writes in the repository is seen here.
const root = mkdtempSync("/var/tmp/clanka-hooks-")
afterAll(() => rmSync(root, { recursive: true, force: true }))

let count = 0
let base: string
let repo: string
let xdg: string
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})
beforeEach(() => {
  base = join(root, String(++count))
  repo = join(base, "repo")
  xdg = join(base, "xdg")
  mkdirSync(join(repo, ".git"), { recursive: true })
  mkdirSync(join(xdg, "clanka"), { recursive: true })
})

async function env(turns: FakeTurn[]): Promise<Record<string, string | undefined>> {
  server = await startFakeModel("anthropic", turns)
  return {
    ...server.env,
    CLANKA_MODEL: "anthropic/claude-sonnet-4-5",
    HOME: join(base, "home"),
    XDG_CONFIG_HOME: xdg,
    XDG_STATE_HOME: join(base, "state"),
    CLANKA_HOME: undefined,
    CLANKA_TRUST_PROJECT: undefined,
    CLANKA_NO_SESSION: "1",
  }
}

const userConfig = (config: object) => writeFileSync(join(xdg, "clanka", "config.json"), JSON.stringify(config))
const finish = (summary: string): FakeTurn => ({ blocks: [{ type: "execute", script: `await taskComplete(${JSON.stringify(summary)})` }] })
const events = (stdout: string) => stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
/** Each event's tag; a Hook as `Hook <name>`. */
const tags = (list: any[]) => list.map((event) => (event._tag === "Hook" ? `Hook ${event.name}` : event._tag))

test("every point's hook runs with its JSON on stdin; Hook events in --json, in order", async () => {
  // Each hook saves its input, one file per point.
  const save = (name: string) => `cat > ${join(base, `${name}.json`)}`
  userConfig({ hooks: { sessionStart: [save("sessionStart")], preExecute: [save("preExecute")], postExecute: [{ command: save("postExecute"), timeoutSec: 5 }], stop: [save("stop")] } })
  const result = await clanka(["run", "--json", "-C", repo, "count"], { env: await env([{ blocks: [{ type: "execute", script: "console.log(6 * 7)" }] }, finish("42")]) })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const printed = events(result.stdout)
  expect(tags(printed)).toEqual([
    "AgentStart",
    "Hook sessionStart",
    "ScriptStart",
    "ScriptDelta",
    "ScriptEnd",
    "Usage",
    "Hook preExecute",
    "ScriptOutputDelta",
    "Hook postExecute",
    "ScriptOutput",
    "ScriptStart",
    "ScriptDelta",
    "ScriptEnd",
    "Usage",
    "Hook preExecute",
    "Hook postExecute",
    "ScriptOutput",
    "Hook stop",
    "AgentFinished",
  ])
  expect(printed[6]).toEqual({ _tag: "Hook", name: "preExecute", command: save("preExecute"), exitCode: 0, durationMs: expect.any(Number), blocked: false })
  const [start] = printed
  const input = (name: string) => JSON.parse(readFileSync(join(base, `${name}.json`), "utf8"))
  const common = { sessionId: start.sessionId, cwd: repo }
  expect(input("sessionStart")).toEqual({ event: "sessionStart", ...common, resumedFrom: null, prompt: "count" })
  // The last script's: preExecute and postExecute ran twice, the file holds the second.
  expect(input("preExecute")).toEqual({ event: "preExecute", ...common, agent: start.id, script: 'await taskComplete("42")' })
  expect(input("postExecute")).toEqual({ event: "postExecute", ...common, agent: start.id, script: 'await taskComplete("42")', output: "", error: null })
  expect(input("stop")).toEqual({ event: "stop", ...common, summary: "42", error: null, exitCode: 0 })
})

test("a preExecute hook exiting 2 blocks the script: it never runs, and the model gets the hook's reason", async () => {
  // A policy: no writing files.
  userConfig({ hooks: { preExecute: ['if grep -q writeFile; then echo "writing files is not allowed here" >&2; exit 2; fi'], postExecute: ["true"] } })
  const turns: FakeTurn[] = [
    { blocks: [{ type: "execute", script: 'console.log("running"); await writeFile({ path: "out.txt", content: "x" })' }] },
    (request: FakeRequest) => finish(`told: ${request.toolResults[0]}`),
  ]
  const result = await clanka(["run", "--json", "-C", repo, "write it"], { env: await env(turns) })
  expect(result.code).toBe(0)
  expect(result.stderr).toBe("")
  const printed = events(result.stdout)
  expect(tags(printed)).toEqual([
    "AgentStart",
    "ScriptStart",
    "ScriptDelta",
    "ScriptEnd",
    "Usage",
    "Hook preExecute",
    "ScriptOutput",
    "ScriptStart",
    "ScriptDelta",
    "ScriptEnd",
    "Usage",
    "Hook preExecute",
    "Hook postExecute",
    "ScriptOutput",
    "AgentFinished",
  ])
  expect(printed[5]).toMatchObject({ name: "preExecute", exitCode: 2, blocked: true })
  expect(printed[6]).toEqual({ _tag: "ScriptOutput", output: "[blocked by a hook] writing files is not allowed here" })
  expect(server!.requests[1]!.toolResults).toEqual(["[blocked by a hook] writing files is not allowed here"])
  expect(printed.at(-1)).toMatchObject({ summary: "told: [blocked by a hook] writing files is not allowed here" })
  expect(existsSync(join(repo, "out.txt"))).toBe(false)
})

test("a hook failing otherwise (exit 1, a time-out) is one warning line each, and the script runs", async () => {
  userConfig({ hooks: { preExecute: ['echo "lint server down" >&2; exit 1', { command: "sleep 20", timeoutSec: 0.5 }] } })
  const started = performance.now()
  const result = await clanka(["run", "--json", "-C", repo, "go"], { env: await env([finish("ran anyway")]) })
  expect(performance.now() - started).toBeLessThan(15_000)
  expect(result.code).toBe(0)
  expect(result.stderr).toBe(
    'clanka: preExecute hook "echo \\"lint server down\\" >&2; exit 1" exited 1: lint server down\nclanka: preExecute hook "sleep 20" timed out after 0.5 s\n',
  )
  const hooks = events(result.stdout).filter((event) => event._tag === "Hook")
  expect(hooks).toEqual([
    { _tag: "Hook", name: "preExecute", command: 'echo "lint server down" >&2; exit 1', exitCode: 1, durationMs: expect.any(Number), blocked: false, warning: expect.stringContaining("exited 1") },
    { _tag: "Hook", name: "preExecute", command: "sleep 20", exitCode: null, durationMs: expect.any(Number), blocked: false, warning: expect.stringContaining("timed out") },
  ])
  expect(hooks[1].durationMs).toBeGreaterThanOrEqual(500)
  expect(events(result.stdout).at(-1)).toMatchObject({ _tag: "AgentFinished", summary: "ran anyway" })
})

test("text mode: a blocked script and a failed hook show as one warning line each in the progress", async () => {
  const policy = 'grep -q forbidden && { echo "nope" >&2; exit 2; }; exit 0'
  userConfig({ hooks: { preExecute: [policy], stop: ["exit 3"] } })
  const result = await clanka(["run", "-o", "text", "-C", repo, "go"], { env: await env([finish("forbidden"), finish("done")]) })
  expect(result.code).toBe(0)
  expect(result.stdout).toBe("done\n")
  const lines = result.stderr.split("\n")
  expect(lines.filter((line) => line.startsWith("⚠"))).toEqual([`⚠ the preExecute hook ${JSON.stringify(policy)} blocked the script`, '⚠ stop hook "exit 3" exited 3'])
  expect(lines).toContain("  [blocked by a hook] nope")
})

test("attack: an untrusted repository's clanka.json hooks never run, and the one ignored-keys line names them", async () => {
  const pwned = join(base, "pwned")
  const touch = `touch ${pwned}`
  writeFileSync(join(repo, "clanka.json"), JSON.stringify({ model: "anthropic/claude-sonnet-4-5", hooks: { sessionStart: [touch], preExecute: [touch], postExecute: [{ command: touch }], stop: [touch] } }))
  const result = await clanka(["run", "--json", "-C", repo, "go"], { env: await env([finish("done")]) })
  expect(result.code).toBe(0)
  expect(existsSync(pwned)).toBe(false)
  expect(result.stderr).toBe(
    `clanka: ignored in the untrusted project config: clanka.json: hooks (4); trust it with: clanka trust ${repo} (or pass --trust-project for this run)\n`,
  )
  expect(events(result.stdout).filter((event) => event._tag === "Hook")).toEqual([])
  // The same file, trusted: its hooks run, after the user's own.
  userConfig({ hooks: { sessionStart: [`echo user >> ${join(base, "order")}`] } })
  writeFileSync(join(repo, "clanka.json"), JSON.stringify({ hooks: { sessionStart: [`echo project >> ${join(base, "order")}`] } }))
  const trusted = await clanka(["run", "--json", "--trust-project", "-C", repo, "go"], { env: await env([finish("done")]) })
  expect(trusted.code).toBe(0)
  expect(readFileSync(join(base, "order"), "utf8")).toBe("user\nproject\n")
})

test("a malformed hooks value is refused with exit 2 naming the file and the key", async () => {
  userConfig({ hooks: { preExecute: "lint" } })
  const notList = await clanka(["run", "--json", "-C", repo, "go"], { env: await env([]) })
  expect(notList.code).toBe(2)
  expect(notList.stderr).toBe(`clanka: ${join(xdg, "clanka", "config.json")}: hooks.preExecute: a list of hooks: shell commands or {command, timeoutSec} objects\n`)
  userConfig({ hooks: { beforeAll: ["x"] } })
  const unknown = await clanka(["run", "-C", repo, "go"], { env: await env([]) })
  expect(unknown.stderr).toBe(`clanka: ${join(xdg, "clanka", "config.json")}: unknown key "beforeAll" in hooks\n`)
})

test("attack: the model's script, prompt and summary reach a hook only as JSON on stdin, never its command line or environment", async () => {
  const marker = join(base, "injected")
  // Shell syntax that would run if any of it were pasted into a command line.
  const payload = `$(touch ${marker})\`touch ${marker}\`'; touch ${marker}; '"; touch ${marker}; "`
  const hook = `env > ${join(base, "env")}; printf '%s\\n' "$0" "$@" > ${join(base, "argv")}; cat > ${join(base, "stdin")}`
  userConfig({ hooks: { sessionStart: [hook], preExecute: [hook], postExecute: [hook], stop: [hook] } })
  const script = `console.log(${JSON.stringify(payload)}); await taskComplete(${JSON.stringify(payload)})`
  const result = await clanka(["run", "--json", "-C", repo, payload], { env: await env([{ blocks: [{ type: "execute", script }] }]) })
  expect(result.code).toBe(0)
  expect(existsSync(marker)).toBe(false)
  expect(readFileSync(join(base, "env"), "utf8")).not.toContain("touch")
  expect(readFileSync(join(base, "argv"), "utf8")).toBe("/bin/sh\n")
  expect(JSON.parse(readFileSync(join(base, "stdin"), "utf8"))).toMatchObject({ event: "stop", summary: payload })
})

test("attack: a script that rewrites the file a trusted project's hook runs gets nothing run outside the sandbox; the hook is refused with a warning", async () => {
  const leak = join(base, "leak")
  mkdirSync(join(repo, "scripts"))
  writeFileSync(join(repo, "scripts", "policy.sh"), "#!/bin/sh\nexit 0\n", { mode: 0o755 })
  writeFileSync(join(repo, "clanka.json"), JSON.stringify({ hooks: { preExecute: ["./scripts/policy.sh"], stop: ["sh scripts/policy.sh"] } }))
  // The sandbox lets a script write the workspace: it swaps in a policy.sh that would run outside.
  const evil = `#!/bin/sh\nenv > ${leak}\n`
  const script = `await writeFile({ path: "scripts/policy.sh", content: ${JSON.stringify(evil)} })`
  const result = await clanka(["run", "--json", "--trust-project", "-C", repo, "go"], {
    env: { ...(await env([{ blocks: [{ type: "execute", script }] }, finish("done")])), ANTHROPIC_API_KEY: "sk-ant-hook-secret" },
  })
  expect(result.code).toBe(0)
  expect(existsSync(leak)).toBe(false)
  const hooks = events(result.stdout).filter((event) => event._tag === "Hook")
  const changed = (command: string, file: string) =>
    `hook ${JSON.stringify(command)} could not start: ${file} changed since the run started (a script may have written it); it is not run outside the sandbox`
  expect(hooks.map((hook) => [hook.name, hook.exitCode, hook.warning])).toEqual([
    ["preExecute", 0, undefined],
    ["preExecute", null, `preExecute ${changed("./scripts/policy.sh", "./scripts/policy.sh")}`],
    ["stop", null, `stop ${changed("sh scripts/policy.sh", "scripts/policy.sh")}`],
  ])
  expect(result.stderr).toContain(`clanka: preExecute ${changed("./scripts/policy.sh", "./scripts/policy.sh")}\n`)
})
