/**
 * The GitHub Action's two step scripts (action/install.sh, action/run.sh) run here as the runner
 * runs them: with GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE and RUNNER_TEMP in a
 * temporary directory, a local "release" standing in for GitHub's download URL, and the fake
 * model server. The released "binary" is a small script that starts clanka from source.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test"
import type { Server } from "bun"
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { basename, join } from "node:path"
import { BUN, MAIN, ROOT } from "../support/cli.ts"
import { startFakeModel, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { temporaryDirectory } from "../support/temp.ts"

const directory = temporaryDirectory("clanka-action-")
const KEY = "sk-ant-test-0123456789-secret"
const ASSET = "clanka-linux-x64"
const STUB = `#!/bin/sh\nexec "${BUN}" "${MAIN}" "$@"\n`

/** What the local release serves, by path; every request is recorded. */
let release: Record<string, string> = {}
const downloads: string[] = []
let server: Server<undefined>
beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname
      downloads.push(path)
      const body = release[path]
      return body === undefined ? new Response("Not Found", { status: 404 }) : new Response(body)
    },
  })
})
afterAll(() => server.stop(true))

let model: FakeServer | undefined
afterEach(async () => {
  await model?.close()
  model = undefined
})

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

function publish(tag: string, binary: string, sums = `${sha256("other")}  clanka-darwin-arm64\n${sha256(binary)}  ${ASSET}\n`): string {
  release[`/download/${tag}/${ASSET}`] = binary
  release[`/download/${tag}/SHA256SUMS`] = sums
  return `http://127.0.0.1:${server.port}/download/${tag}`
}

let jobs = 0

/** A fresh job: its own runner temp, output and summary files, and a workspace that is a git repository. */
function job(): Record<string, string> {
  const root = join(directory, `job-${++jobs}`)
  const workspace = join(root, "workspace")
  mkdirSync(join(root, "temp"), { recursive: true })
  mkdirSync(workspace, { recursive: true })
  writeFileSync(join(workspace, "app.js"), "console.log('hi')\n")
  git(workspace, "init", "-q")
  git(workspace, "add", ".")
  git(workspace, "commit", "-qm", "start")
  writeFileSync(join(root, "output"), "")
  writeFileSync(join(root, "path"), "")
  writeFileSync(join(root, "summary.md"), "")
  return {
    PATH: process.env.PATH!,
    HOME: join(root, "home"),
    LANG: "C.UTF-8",
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_OUTPUT: join(root, "output"),
    GITHUB_PATH: join(root, "path"),
    GITHUB_STEP_SUMMARY: join(root, "summary.md"),
    GITHUB_WORKSPACE: workspace,
    GITHUB_REPOSITORY: "someone/project",
    GITHUB_ACTION_PATH: join(root, "_actions", "clanka", "clanka", "main"),
    RUNNER_OS: "Linux",
    RUNNER_ARCH: "X64",
    RUNNER_TEMP: join(root, "temp"),
  }
}

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } })
  if (result.status !== 0) throw new Error(result.stderr)
  return result.stdout.trim()
}

async function step(script: "install.sh" | "run.sh", env: Record<string, string>) {
  const child = Bun.spawn(["sh", join(ROOT, "action", script)], { cwd: env.GITHUB_WORKSPACE, env, stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: 25_000 })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { stdout, stderr, code }
}

/** The step outputs as the runner reads GITHUB_OUTPUT: `name=value` lines and `name<<DELIMITER` blocks. */
function outputs(file: string): Record<string, string> {
  const lines = readFileSync(file, "utf8").split("\n")
  const values: Record<string, string> = {}
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const block = /^([^=<]+)<<(.+)$/.exec(line)
    if (block) {
      const end = lines.indexOf(block[2]!, i + 1)
      if (end < 0) throw new Error(`no closing delimiter for ${block[1]}`)
      values[block[1]!] = lines.slice(i + 1, end).join("\n")
      i = end
    } else if (line.includes("=")) values[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1)
  }
  return values
}

async function install(env: Record<string, string>, tag = "v9.9.9"): Promise<string> {
  const result = await step("install.sh", { ...env, INPUT_DOWNLOAD_URL: publish(tag, STUB), INPUT_VERSION: tag })
  expect(result.stderr).toBe("")
  expect(result.code).toBe(0)
  const path = outputs(env.GITHUB_OUTPUT!).path!
  expect(path).toBe(join(env.RUNNER_TEMP!, "clanka-bin", tag, "clanka"))
  // Later steps of the job find it on PATH (clanka summary, clanka batch).
  expect(readFileSync(env.GITHUB_PATH!, "utf8")).toBe(join(env.RUNNER_TEMP!, "clanka-bin", tag) + "\n")
  return path
}

const work = (script: string, usage = { input: 1000, output: 100 }): FakeTurn => ({ blocks: [{ type: "execute", script }], usage })

test("install checks the binary against SHA256SUMS; run sets the outputs, writes the job summary and keeps the transcript", async () => {
  const env = job()
  const bin = await install(env)
  expect(readFileSync(bin, "utf8")).toBe(STUB)
  expect(statSync(bin).mode & 0o111).toBe(0o111)
  expect(downloads.slice(-2)).toEqual(["/download/v9.9.9/SHA256SUMS", `/download/v9.9.9/${ASSET}`])

  model = await startFakeModel("anthropic", [
    work("await writeFile({path: 'notes.md', content: 'n'}); await writeFile({path: 'app.js', content: 'x'}); console.log('written')"),
    work("await bash({command: 'exit 3'})"),
    work("await taskComplete('Done: notes added.\\nSee notes.md for\\n\\nghadelimiter_x and more.')"),
  ])
  const result = await step("run.sh", {
    ...env,
    CLANKA_BIN: bin,
    ANTHROPIC_BASE_URL: model.env.ANTHROPIC_BASE_URL!,
    INPUT_ANTHROPIC_API_KEY: KEY,
    INPUT_PROMPT: "--add notes\n(a prompt that starts like a flag)",
    INPUT_MODEL: "anthropic/claude-sonnet-4-5",
    INPUT_MAX_BUDGET_USD: "5",
    INPUT_ARGS: "--max-turns 10\n--turn-timeout 60",
  })
  expect(result.code).toBe(0)
  // The key reaches the model and, on stdout, only the runner's mask command: never the log.
  expect(model.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`, `Bearer ${KEY}`])
  expect(model.requests[0]!.lastUserText).toBe("--add notes\n(a prompt that starts like a flag)")
  expect(result.stdout.split("\n").filter((line) => line.includes(KEY))).toEqual([`::add-mask::${KEY}`])
  expect(result.stderr).not.toContain(KEY)
  expect(result.stdout).toContain("clanka run --json -C ")
  expect(result.stdout).toContain(" --model anthropic/claude-sonnet-4-5 --max-budget-usd 5 --max-turns 10 --turn-timeout 60 -\n")

  const out = outputs(env.GITHUB_OUTPUT!)
  const events = readFileSync(out["events-file"]!, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line))
  const sessionId = events[0].sessionId
  expect(sessionId).toMatch(/^[0-9a-f-]{36}$/)
  expect(out).toEqual({
    path: bin,
    "exit-code": "0",
    "session-id": sessionId,
    "cost-usd": String(events.at(-1).usage.costUsd),
    turns: "3",
    summary: "Done: notes added.\nSee notes.md for\n\nghadelimiter_x and more.",
    "events-file": join(env.RUNNER_TEMP!, out["events-file"]!.slice(env.RUNNER_TEMP!.length + 1)),
    "artifact-dir": out["events-file"]!.replace(/events\.ndjson$/, "artifact"),
  })
  expect(Number(out["cost-usd"])).toBeGreaterThan(0)

  const summary = readFileSync(env.GITHUB_STEP_SUMMARY!, "utf8")
  expect(summary).toStartWith("## ✅ clanka finished\n\nDone: notes added.\nSee notes.md for\n\nghadelimiter_x and more.\n\n| | |\n")
  expect(summary).toContain("| Turns | 3 |\n")
  expect(summary).toContain("| Tokens | 3,000 input · 300 output |\n")
  expect(summary).toContain("| Scripts | 3 run, 1 failed |\n")
  expect(summary).toContain("### Scripts that failed (1 of 3)\n\n- Script 2: `")
  expect(summary).toEndWith("<details>\n<summary>2 files changed</summary>\n\n- modified `app.js`\n- untracked `notes.md`\n\n</details>\n")

  // The artifact a later job downloads: the transcript (sessions dir of this job) and the events.
  expect(readdirSync(out["artifact-dir"]!).sort()).toEqual([`${sessionId}.jsonl`, "events.ndjson"].sort())
  expect(readFileSync(join(out["artifact-dir"]!, `${sessionId}.jsonl`), "utf8")).not.toContain(KEY)

  // A follow-up job on another runner: the artifact is downloaded to RUNNER_TEMP/clanka-resume.
  const next = job()
  const bin2 = await install(next)
  cpSync(out["artifact-dir"]!, join(next.RUNNER_TEMP!, "clanka-resume"), { recursive: true })
  model = await startFakeModel("anthropic", [work("await taskComplete('Reviewed the notes.')")])
  const resumed = await step("run.sh", {
    ...next,
    CLANKA_BIN: bin2,
    ANTHROPIC_BASE_URL: model.env.ANTHROPIC_BASE_URL!,
    INPUT_ANTHROPIC_API_KEY: KEY,
    INPUT_PROMPT: "now review what you did",
    INPUT_MODEL: "anthropic/claude-sonnet-4-5",
    INPUT_RESUME: sessionId,
    INPUT_RESUME_DIR: join(next.RUNNER_TEMP!, "clanka-resume"),
  })
  expect(resumed.stderr).not.toContain("clanka: ")
  expect(resumed.code).toBe(0)
  // The model sees the first job's conversation before the new prompt.
  const history = JSON.stringify(model.requests[0]!.body.messages)
  expect(history).toContain("(a prompt that starts like a flag)")
  expect(history).toContain("written")
  expect(model.requests[0]!.lastUserText).toBe("now review what you did")
  const again = outputs(next.GITHUB_OUTPUT!)
  expect(again["session-id"]).toBe(sessionId)
  expect(again.summary).toBe("Reviewed the notes.")
  expect(readFileSync(next.GITHUB_STEP_SUMMARY!, "utf8")).toContain(`| Session | \`${sessionId}\` (resumed) |`)
}, 60_000)

test("a failed run: the step exits with clanka's code, the outputs and job summary say why", async () => {
  const env = job()
  const bin = await install(env)
  model = await startFakeModel("anthropic", [{ error: { status: 401, message: "invalid x-api-key" } }])
  const result = await step("run.sh", {
    ...env,
    CLANKA_BIN: bin,
    ANTHROPIC_BASE_URL: model.env.ANTHROPIC_BASE_URL!,
    INPUT_ANTHROPIC_API_KEY: "wrong",
    INPUT_PROMPT: "anything",
    INPUT_MODEL: "anthropic/claude-sonnet-4-5",
  })
  expect(result.code).toBe(1)
  const out = outputs(env.GITHUB_OUTPUT!)
  expect(out["exit-code"]).toBe("1")
  expect(out.summary).toContain("ANTHROPIC_API_KEY")
  expect(out.turns).toBe("0")
  expect(result.stdout).toContain(`::error title=clanka::clanka exited with 1: ${out.summary}`)
  expect(readFileSync(env.GITHUB_STEP_SUMMARY!, "utf8")).toStartWith(`## ❌ clanka failed (exit 1)\n\n> `)
})

/**
 * The workflow commands the runner would obey in a step's log, as it reads it: a line `::name …::`
 * is a command unless `::stop-commands::TOKEN` turned commands off until a line `::TOKEN::`.
 */
function obeyedCommands(log: string): string[] {
  let stopped: string | undefined
  const obeyed: string[] = []
  for (const line of log.split("\n")) {
    const command = /^::([^ :]+)[^:]*::(.*)$/.exec(line)
    if (!command) continue
    if (stopped !== undefined) {
      if (command[1] === stopped && command[2] === "") stopped = undefined
      continue
    }
    if (command[1] === "stop-commands") stopped = command[2]
    obeyed.push(line)
  }
  return obeyed
}

/** run.sh with clanka behind a shell wrapper (`body(bin)` runs it), against a model that finishes at once. */
async function runWrapped(env: ReturnType<typeof job>, name: string, body: (bin: string) => string) {
  const bin = await install(env)
  const wrapper = join(env.RUNNER_TEMP!, name)
  writeFileSync(wrapper, `#!/bin/sh\n${body(bin)}\n`)
  chmodSync(wrapper, 0o755)
  model = await startFakeModel("anthropic", [work("await taskComplete('done')")])
  return step("run.sh", {
    ...env,
    CLANKA_BIN: wrapper,
    ANTHROPIC_BASE_URL: model.env.ANTHROPIC_BASE_URL!,
    INPUT_ANTHROPIC_API_KEY: KEY,
    INPUT_PROMPT: "anything",
    INPUT_MODEL: "anthropic/claude-sonnet-4-5",
  })
}

test("what clanka prints to the log cannot be a workflow command: a repository's file name, or any line of its messages", async () => {
  const env = job()
  // A skill folder whose name carries a line of its own (git stores such names); its SKILL.md lacks
  // a description, so clanka names the folder in a warning on stderr (as one line, ^J for the newline).
  const skill = join(env.GITHUB_WORKSPACE!, ".claude", "skills", "x\n::error title=hijacked::from the repository\n::stop-commands::attacker")
  mkdirSync(skill, { recursive: true })
  writeFileSync(join(skill, "SKILL.md"), "---\nname: x\n---\nbody\n")
  // And whatever else clanka may print there: a binary that starts with workflow commands of its own.
  const result = await runWrapped(env, "noisy-clanka", (bin) => `echo '::error title=hijacked::from a message' >&2\necho '::stop-commands::attacker' >&2\nexec "${bin}" "$@"`)
  expect(result.code).toBe(0)
  expect(result.stderr).toContain("x^J::error title=hijacked::from the repository^J")
  expect(result.stderr).toContain("\n::error title=hijacked::from a message\n")
  // stderr is where clanka's messages go (stdout holds only the step's own lines).
  const obeyed = obeyedCommands(result.stderr)
  expect(obeyed.filter((line) => line.includes("hijacked") || line.includes("attacker"))).toEqual([])
  // Turned off around clanka run and clanka summary, and on again after each.
  expect(obeyed.filter((line) => line.startsWith("::stop-commands::clanka-"))).toHaveLength(2)
})

test("a message that ends without a newline does not swallow the marker that turns workflow commands back on", async () => {
  const result = await runWrapped(job(), "trailing-clanka", (bin) => `"${bin}" "$@"; rc=$?\nprintf 'a last word without a newline' >&2\nexit $rc`)
  expect(result.code).toBe(0)
  expect(result.stderr).toContain("a last word without a newline\n")
  // Each stop is followed by its own token on a line of its own: commands are on again after it.
  const stops = [...result.stderr.matchAll(/^::stop-commands::(clanka-[0-9a-f]+)$/gm)].map((match) => match[1])
  expect(stops).toHaveLength(2)
  for (const token of stops) expect(result.stderr.split("\n")).toContain(`::${token}::`)
})

test("an input with a line of its own (a model or directory taken from an issue comment) is not a workflow command in the log", async () => {
  const env = job()
  const bin = await install(env)
  const sub = join(env.GITHUB_WORKSPACE!, "sub\n::error title=hijacked::from working-directory")
  mkdirSync(sub)
  model = await startFakeModel("anthropic", [work("await taskComplete('done')")])
  const result = await step("run.sh", {
    ...env,
    CLANKA_BIN: bin,
    ANTHROPIC_BASE_URL: model.env.ANTHROPIC_BASE_URL!,
    INPUT_ANTHROPIC_API_KEY: KEY,
    INPUT_PROMPT: "anything",
    INPUT_MODEL: "anthropic/claude-sonnet-4-5\n::error title=hijacked::from the model input",
    INPUT_WORKING_DIRECTORY: sub,
  })
  // clanka refuses the model; what matters is the log.
  expect(result.code).toBe(2)
  expect(result.stdout).toContain("clanka run --json -C ")
  expect(obeyedCommands(result.stdout).filter((line) => line.includes("hijacked"))).toEqual([])
  expect(obeyedCommands(result.stderr).filter((line) => line.includes("hijacked"))).toEqual([])
})

for (const backend of ["bwrap", "landlock"]) test(`the checkout's persisted token (an extraheader, or v6's file an includeIf names) is out of the scripts' reach during the run (${backend}), and back after it`, async () => {
  const env = job()
  const bin = await install(env)
  const workspace = env.GITHUB_WORKSPACE!
  const token = "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX1NFQ1JFVA=="
  // As actions/checkout v4 and v6 leave them.
  git(workspace, "config", "--local", "http.https://github.com/.extraheader", token)
  const file = join(env.RUNNER_TEMP!, "git-credentials-1234.config")
  writeFileSync(file, `[http "https://github.com/"]\n\textraheader = ${token.replace("basic", "basic v6")}\n`)
  git(workspace, "config", "--local", `includeIf.gitdir:${workspace}/.git.path`, file)
  git(workspace, "config", "--local", "user.name", "kept")
  const before = git(workspace, "config", "--local", "--list")
  model = await startFakeModel("anthropic", [
    work(`console.log(await readFile({path: '.git/config'})); console.log(await bash({command: 'git config --list --show-origin; cat ${file}; true'}))`),
    work("await taskComplete('looked')"),
  ])
  const result = await step("run.sh", {
    ...env,
    CLANKA_BIN: bin,
    ANTHROPIC_BASE_URL: model.env.ANTHROPIC_BASE_URL!,
    INPUT_ANTHROPIC_API_KEY: KEY,
    INPUT_PROMPT: "show the git config",
    INPUT_MODEL: "anthropic/claude-sonnet-4-5",
    INPUT_SANDBOX_BACKEND: backend,
  })
  expect(result.code).toBe(0)
  const events = readFileSync(outputs(env.GITHUB_OUTPUT!)["events-file"]!, "utf8")
  // The script ran and read the config, which no longer held the token.
  expect(events).toContain("user.name=kept")
  expect(events).not.toContain("eC1hY2Nlc3MtdG9rZW46Z2hzX1NFQ1JFVA")
  expect(JSON.stringify(model.requests.map((request) => request.body))).not.toContain("eC1hY2Nlc3MtdG9rZW46Z2hzX1NFQ1JFVA")
  // Back for the steps after (a push); the order of the entries may change, nothing else.
  expect(git(workspace, "config", "--local", "--list").split("\n").sort()).toEqual(before.split("\n").sort())
  expect(readFileSync(file, "utf8")).toContain("basic v6")
  expect(events).toContain(`"backend":"${backend}"`)
})

/**
 * A job whose runner directories are outside /tmp, as on a runner (/home/runner/work/_temp): the
 * sandboxes refuse the host's /tmp, so under it a secret left in RUNNER_TEMP would be out of the
 * scripts' reach for a reason no runner has.
 */
function jobOutsideTmp(): Record<string, string> {
  const env = job()
  const root = mkdtempSync("/var/tmp/clanka-action-")
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  mkdirSync(join(root, "temp"))
  return { ...env, RUNNER_TEMP: join(root, "temp") }
}

/** Runs a script that looks for `secret` where the checkout left it; the step's result and events. */
async function lookFor(env: Record<string, string>, backend: string, command: string) {
  const bin = await install(env)
  model = await startFakeModel("anthropic", [work(`console.log(await bash({command: ${JSON.stringify(command + "; true")}}))`), work("await taskComplete('looked')")])
  const result = await step("run.sh", {
    ...env,
    CLANKA_BIN: bin,
    ANTHROPIC_BASE_URL: model.env.ANTHROPIC_BASE_URL!,
    INPUT_ANTHROPIC_API_KEY: KEY,
    INPUT_PROMPT: "look around",
    INPUT_MODEL: "anthropic/claude-sonnet-4-5",
    INPUT_SANDBOX_BACKEND: backend,
  })
  expect(result.code).toBe(0)
  const events = readFileSync(outputs(env.GITHUB_OUTPUT!)["events-file"]!, "utf8")
  expect(events).toContain(`"backend":"${backend}"`)
  return { result, events: events + JSON.stringify(model.requests.map((request) => request.body)) }
}

for (const backend of ["bwrap", "landlock"]) test(`the checkout's credentials file stays out of reach when a script makes it readable again (${backend})`, async () => {
  const env = jobOutsideTmp()
  const workspace = env.GITHUB_WORKSPACE!
  // actions/checkout v6: the token in a file under RUNNER_TEMP that an includeIf names. A file of
  // mode 000 is one chmod away for its owner, which the script is (Landlock does not govern chmod).
  const file = join(env.RUNNER_TEMP!, "git-credentials-5678.config")
  writeFileSync(file, `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic djZTRUNSRVQ=\n`)
  git(workspace, "config", "--local", `includeIf.gitdir:${workspace}/.git.path`, file)
  const { events } = await lookFor(env, backend, `chmod 644 ${file}; cat ${file}; ls -la ${env.RUNNER_TEMP}`)
  expect(events).toContain("clanka-home")
  expect(events.includes("djZTRUNSRVQ")).toBe(false)
  // Back as it was for the steps after the run.
  expect(readFileSync(file, "utf8")).toContain("basic djZTRUNSRVQ=")
  expect(git(workspace, "config", "--local", "--get", `includeIf.gitdir:${workspace}/.git.path`)).toBe(file)
})

for (const backend of ["bwrap", "landlock"]) test(`the deploy key the checkout left for ssh is out of the scripts' reach during the run (${backend}), and back after it`, async () => {
  const env = jobOutsideTmp()
  const workspace = env.GITHUB_WORKSPACE!
  // actions/checkout with ssh-key: the key in RUNNER_TEMP (0600, owned by the step's user, as the
  // script is), named by core.sshCommand for the steps after it.
  const key = join(env.RUNNER_TEMP!, "0c4a9a35-2f4e-4d3e-9c57-1b8a0a2f6d11")
  writeFileSync(key, "-----BEGIN OPENSSH PRIVATE KEY-----\nZGVwbG95LWtleS1zZWNyZXQ=\n-----END OPENSSH PRIVATE KEY-----\n", { mode: 0o600 })
  writeFileSync(`${key}_known_hosts`, "github.com ssh-rsa AAAA\n")
  const sshCommand = `"/usr/bin/ssh" -i "$RUNNER_TEMP/${basename(key)}" -o "UserKnownHostsFile=$RUNNER_TEMP/${basename(key)}_known_hosts"`
  git(workspace, "config", "--local", "core.sshCommand", sshCommand)
  const { events } = await lookFor(env, backend, `git config core.sshCommand; cat ${key}; chmod 644 ${key}; cat ${key}`)
  expect(events).toContain("UserKnownHostsFile")
  expect(events.includes("ZGVwbG95LWtleS1zZWNyZXQ")).toBe(false)
  expect(readFileSync(key, "utf8")).toContain("ZGVwbG95LWtleS1zZWNyZXQ=")
  expect(statSync(key).mode & 0o777).toBe(0o600)
  expect(git(workspace, "config", "--local", "--get", "core.sshCommand")).toBe(sshCommand)
})

for (const backend of ["bwrap", "landlock"]) test(`the token actions/checkout v4 writes into each submodule's config is out of the scripts' reach during the run (${backend}), and back after it`, async () => {
  const env = jobOutsideTmp()
  const workspace = env.GITHUB_WORKSPACE!
  const library = join(env.RUNNER_TEMP!, "..", "library")
  mkdirSync(library)
  writeFileSync(join(library, "lib.js"), "export {}\n")
  git(library, "init", "-q")
  git(library, "add", ".")
  git(library, "commit", "-qm", "lib")
  git(workspace, "-c", "protocol.file.allow=always", "submodule", "add", "-q", library, "lib")
  git(workspace, "commit", "-qm", "add lib")
  // With submodules and persist-credentials (v4): the extraheader in each submodule's config too.
  const token = "AUTHORIZATION: basic c3VibW9kdWxlLXRva2Vu"
  git(workspace, "config", "--local", "http.https://github.com/.extraheader", token)
  git(join(workspace, "lib"), "config", "--local", "http.https://github.com/.extraheader", token)
  git(join(workspace, "lib"), "config", "--local", "user.name", "kept")
  const before = readFileSync(join(workspace, ".git", "modules", "lib", "config"), "utf8")
  const { events } = await lookFor(env, backend, "cat .git/modules/lib/config; git -C lib config --list")
  expect(events).toContain("user.name=kept")
  expect(events.includes("c3VibW9kdWxlLXRva2Vu")).toBe(false)
  expect(git(join(workspace, "lib"), "config", "--local", "--get", "http.https://github.com/.extraheader")).toBe(token)
  expect(readFileSync(join(workspace, ".git", "modules", "lib", "config"), "utf8").split("\n").sort()).toEqual(before.split("\n").sort())
})

for (const backend of ["bwrap", "landlock"]) test(`a repository a script makes of the working-directory runs nothing of its own when the job summary lists the files changed (${backend})`, async () => {
  const env = job()
  const bin = await install(env)
  const workspace = env.GITHUB_WORKSPACE!
  mkdirSync(join(workspace, "sub"))
  writeFileSync(join(workspace, "sub", "a.txt"), "a\n")
  git(workspace, "add", ".")
  git(workspace, "commit", "-qm", "sub")
  // The sandbox's workspace is sub, where no .git was: a script can make one there, with a clean
  // filter that git outside the sandbox would run to compare a file whose time changed (and the
  // checkout's objects as alternates, so that the revision the action noted resolves there too).
  const marker = join(env.RUNNER_TEMP!, "..", "filter-ran")
  const filter = `sh -c 'env > ${marker}; cat'`
  model = await startFakeModel("anthropic", [
    work(
      `console.log(await bash({command: ${JSON.stringify(`git init -q . && git config filter.x.clean "${filter}" && echo '* filter=x' > .gitattributes && echo $(cd .. && pwd)/.git/objects > .git/objects/info/alternates && git add . && touch -d 2001-01-01 a.txt && echo b > b.txt && git status --short`)}}))`,
    ),
    work("await taskComplete('done')"),
  ])
  const result = await step("run.sh", {
    ...env,
    CLANKA_BIN: bin,
    ANTHROPIC_BASE_URL: model.env.ANTHROPIC_BASE_URL!,
    INPUT_ANTHROPIC_API_KEY: KEY,
    INPUT_PROMPT: "work in sub",
    INPUT_MODEL: "anthropic/claude-sonnet-4-5",
    INPUT_SANDBOX_BACKEND: backend,
    INPUT_WORKING_DIRECTORY: join(workspace, "sub"),
  })
  expect(result.code).toBe(0)
  const events = readFileSync(outputs(env.GITHUB_OUTPUT!)["events-file"]!, "utf8")
  expect(events).toContain("A  .gitattributes")
  expect(existsSync(marker)).toBe(false)
  // The files changed are the checkout's, from its top: what the script added, as untracked files.
  const summary = readFileSync(env.GITHUB_STEP_SUMMARY!, "utf8")
  expect(summary).toStartWith("## ✅ clanka finished\n")
  expect(summary).toContain("- untracked `sub/.gitattributes`\n- untracked `sub/b.txt`\n")
})

test("when git cannot list the files changed (a script broke the index), the job summary still reports the run", async () => {
  const env = job()
  const bin = await install(env)
  model = await startFakeModel("anthropic", [work("await writeFile({path: '.git/index', content: 'not an index'})"), work("await taskComplete('Fixed it.')")])
  const result = await step("run.sh", {
    ...env,
    CLANKA_BIN: bin,
    ANTHROPIC_BASE_URL: model.env.ANTHROPIC_BASE_URL!,
    INPUT_ANTHROPIC_API_KEY: KEY,
    INPUT_PROMPT: "anything",
    INPUT_MODEL: "anthropic/claude-sonnet-4-5",
  })
  expect(result.code).toBe(0)
  expect(result.stderr).toContain("clanka: git diff in ")
  const summary = readFileSync(env.GITHUB_STEP_SUMMARY!, "utf8")
  expect(summary).toStartWith("## ✅ clanka finished\n\nFixed it.\n")
  expect(summary).toContain("| Turns | 2 |")
  expect(summary).toEndWith("\n_The files changed could not be listed: git failed (its message is in the log of this step)._\n")
})

test.if(process.getuid?.() === 0)("a checkout another user owns (a container job's workspace): the token is still taken out for the run, and the files changed still listed", async () => {
  const env = job()
  const workspace = env.GITHUB_WORKSPACE!
  const token = "AUTHORIZATION: basic Zm9yZWlnbi1vd25lcg=="
  git(workspace, "config", "--local", "http.https://github.com/.extraheader", token)
  // The runner's user owns the workspace; the container's root runs the steps: git refuses such a
  // repository ("dubious ownership") unless safe.directory names it.
  Bun.spawnSync(["chown", "-R", "65534:65534", workspace])
  const { events } = await lookFor(env, "landlock", "cat .git/config")
  expect(events).toContain("repositoryformatversion")
  expect(events.includes("Zm9yZWlnbi1vd25lcg")).toBe(false)
  expect(readFileSync(join(workspace, ".git", "config"), "utf8")).toContain(token)
  expect(readFileSync(env.GITHUB_STEP_SUMMARY!, "utf8")).toContain("\nNo files changed.\n")
})

test("a damaged binary is refused by its checksum: exit 1, one clear error, nothing installed or run", async () => {
  const env = job()
  const marker = join(directory, "ran")
  const damaged = `#!/bin/sh\ntouch "${marker}"\n`
  const url = publish("v6.6.6", STUB)
  release["/download/v6.6.6/" + ASSET] = damaged
  const result = await step("install.sh", { ...env, INPUT_DOWNLOAD_URL: url, INPUT_VERSION: "v6.6.6" })
  expect(result.code).toBe(1)
  expect(result.stdout.trimEnd().split("\n").at(-1)).toBe(
    `::error title=clanka action::checksum mismatch for ${ASSET} (v6.6.6): SHA256SUMS says ${sha256(STUB)}, the download is ${sha256(damaged)}; refusing to run it`,
  )
  expect(existsSync(join(env.RUNNER_TEMP!, "clanka-bin", "v6.6.6", "clanka"))).toBe(false)
  expect(existsSync(marker)).toBe(false)
  expect(outputs(env.GITHUB_OUTPUT!)).toEqual({})
  expect(readFileSync(env.GITHUB_PATH!, "utf8")).toBe("")

  // No line for this runner's binary, or no SHA256SUMS at all: refused the same way.
  publish("v6.6.7", STUB, `${sha256(STUB)}  clanka-darwin-arm64\n`)
  const unlisted = await step("install.sh", { ...env, INPUT_DOWNLOAD_URL: `http://127.0.0.1:${server.port}/download/v6.6.7`, INPUT_VERSION: "v6.6.7" })
  expect(unlisted.code).toBe(1)
  expect(unlisted.stdout).toContain(`::error title=clanka action::SHA256SUMS of v6.6.7 has no line for ${ASSET}: refusing to run an unchecked binary`)
  delete release["/download/v6.6.7/SHA256SUMS"]
  const unsummed = await step("install.sh", { ...env, INPUT_DOWNLOAD_URL: `http://127.0.0.1:${server.port}/download/v6.6.7`, INPUT_VERSION: "v6.6.7" })
  expect(unsummed.code).toBe(1)
  expect(unsummed.stdout).toContain(`/download/v6.6.7/SHA256SUMS: refusing to run a binary that cannot be checked`)
  expect(existsSync(join(env.RUNNER_TEMP!, "clanka-bin", "v6.6.7", "clanka"))).toBe(false)
})

/**
 * A PATH holding every command of this machine except `without`, plus the given stand-ins (shell
 * scripts).
 */
let paths = 0
function pathWith(without: string[], standIns: Record<string, string>): string {
  const bin = join(directory, `path-${++paths}`)
  mkdirSync(bin)
  for (const dir of process.env.PATH!.split(":")) {
    if (!existsSync(dir)) continue
    for (const name of readdirSync(dir)) {
      if (without.includes(name) || name in standIns || existsSync(join(bin, name))) continue
      symlinkSync(join(dir, name), join(bin, name))
    }
  }
  for (const [name, body] of Object.entries(standIns)) {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`)
    chmodSync(join(bin, name), 0o755)
  }
  return bin
}

test("install picks the runner's asset, the version from the action's own tag and GitHub's download URL", async () => {
  const env = job()
  const tagged = join(env.RUNNER_TEMP!, "..", "_actions", "someone", "clanka", "v1.2.3")
  for (const [os, arch, asset] of [
    ["macOS", "ARM64", "clanka-darwin-arm64"],
    ["Windows", "X64", "clanka-windows-x64.exe"],
  ] as const) {
    release[`/download/v1.2.3/${asset}`] = STUB
    release["/download/v1.2.3/SHA256SUMS"] = `${sha256(STUB)} *${asset}\n`
    const result = await step("install.sh", {
      ...env,
      RUNNER_OS: os,
      RUNNER_ARCH: arch,
      GITHUB_ACTION_PATH: tagged,
      INPUT_DOWNLOAD_URL: `http://127.0.0.1:${server.port}/download/v1.2.3`,
    })
    expect(result.code).toBe(0)
    expect(downloads.at(-1)).toBe(`/download/v1.2.3/${asset}`)
    expect(outputs(env.GITHUB_OUTPUT!).path).toBe(join(env.RUNNER_TEMP!, "clanka-bin", "v1.2.3", os === "Windows" ? "clanka.exe" : "clanka"))
  }

  // Without download-url: the release of the action's repository and tag on GitHub, or the latest
  // release of the repository input; curl here records the URL and fails.
  const log = join(directory, "curl.log")
  const PATH = pathWith([], { curl: `for url; do :; done; echo "$url" >> "${log}"; exit 22` })
  const github = await step("install.sh", { ...env, PATH, GITHUB_ACTION_PATH: tagged })
  expect(github.code).toBe(1)
  expect(github.stdout).toContain(
    "::error title=clanka action::could not download https://github.com/someone/clanka/releases/download/v1.2.3/SHA256SUMS: refusing to run a binary that cannot be checked",
  )
  await step("install.sh", { ...env, PATH, INPUT_REPOSITORY: "other/fork" })
  expect(readFileSync(log, "utf8")).toBe(
    "https://github.com/someone/clanka/releases/download/v1.2.3/SHA256SUMS\nhttps://github.com/other/fork/releases/latest/download/SHA256SUMS\n",
  )

  const unknown = await step("install.sh", { ...env, RUNNER_ARCH: "ARM", INPUT_DOWNLOAD_URL: "http://127.0.0.1:9/x" })
  expect(unknown.code).toBe(1)
  expect(unknown.stdout).toBe("::error title=clanka action::no clanka binary for RUNNER_ARCH=ARM (X64 and ARM64 have one)\n")
}, 30_000)

test("install: a version or download-url with a line of its own is no workflow command, and adds nothing to PATH", async () => {
  const env = job()
  const url = publish("v9.9.9", STUB)
  // The version names the directory put on PATH: a line of its own there would be a directory too.
  const version = await step("install.sh", { ...env, INPUT_DOWNLOAD_URL: url, INPUT_VERSION: "v9.9.9\n/tmp/evil\n::error title=hijacked::from the version" })
  expect(version.code).toBe(1)
  expect(version.stdout).toBe("::error title=clanka action::version \"v9.9.9%0A/tmp/evil%0A::error title=hijacked::from the version\" is not a release tag (e.g. v0.2.0, or latest)\n")
  expect(readFileSync(env.GITHUB_PATH!, "utf8")).toBe("")
  const mirror = await step("install.sh", { ...env, INPUT_DOWNLOAD_URL: `${url}\n::error title=hijacked::from the download-url`, INPUT_VERSION: "v9.9.9" })
  expect(mirror.code).toBe(1)
  expect([...obeyedCommands(mirror.stdout), ...obeyedCommands(mirror.stderr)].filter((line) => line.startsWith("::error title=hijacked"))).toEqual([])
  expect(mirror.stdout).toContain("Downloading clanka-linux-x64 (v9.9.9) from http://127.0.0.1:")
  expect(readFileSync(env.GITHUB_PATH!, "utf8")).toBe("")
})

test("where bubblewrap is missing, install gets it with apt-get", async () => {
  const log = join(directory, "apt-get.log")
  const env: Record<string, string> = { ...job(), PATH: pathWith(["bwrap"], { "apt-get": `echo "$@" >> "${log}"` }) }
  const result = await step("install.sh", { ...env, INPUT_DOWNLOAD_URL: publish("v9.9.9", STUB), INPUT_VERSION: "v9.9.9" })
  expect(result.code).toBe(0)
  expect(result.stdout).toContain("Installing bubblewrap\n")
  expect(readFileSync(log, "utf8")).toBe("install -y -qq bubblewrap\n")

  writeFileSync(log, "")
  const skipped = await step("install.sh", { ...env, INPUT_DOWNLOAD_URL: publish("v9.9.9", STUB), INPUT_VERSION: "v9.9.9", INPUT_INSTALL_BUBBLEWRAP: "false" })
  expect(skipped.code).toBe(0)
  expect(readFileSync(log, "utf8")).toBe("")
}, 30_000)

test("run refuses a missing prompt, two prompts and a session it has no transcript of (exit 2, nothing run)", async () => {
  const env: Record<string, string> = { ...job(), CLANKA_BIN: join(directory, "never-run") }
  const cases: [Record<string, string>, string][] = [
    [{}, "no prompt: set the prompt or prompt-file input"],
    [{ INPUT_PROMPT: "a", INPUT_PROMPT_FILE: "b" }, "give prompt or prompt-file, not both"],
    [{ INPUT_PROMPT: "a", INPUT_RESUME: "0b8f6c1e", INPUT_RESUME_DIR: join(directory, "empty") }, "no transcript of session 0b8f6c1e was downloaded"],
    [{ INPUT_PROMPT: "a", INPUT_RESUME: "../x" }, 'resume "../x" is not a session id'],
  ]
  for (const [inputs, message] of cases) {
    const result = await step("run.sh", { ...env, ...inputs })
    expect(result.code).toBe(2)
    expect(result.stdout).toStartWith(`::error title=clanka action::${message}`)
  }
  expect(outputs(env.GITHUB_OUTPUT!)).toEqual({})
})
