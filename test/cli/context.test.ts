// What the model is told about where it works, through the real CLI and executor: the system
// prompt the fake model receives holds the machine's facts, every AGENTS.md from the repository
// root down (the user's first), and the skills, which scripts load with skill(name).
import { afterEach, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { chmodSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { osSandboxWorks } from "../../src/executor/os-sandbox.ts"
import { clanka } from "../support/cli.ts"
import { startFakeModel, type FakeServer, type FakeTurn } from "../support/fake-model.ts"
import { LANDLOCK } from "../support/sandbox-backends.ts"
import { temporaryDirectory } from "../support/temp.ts"

const sandboxed = osSandboxWorks()
if (!sandboxed && process.env.CI) throw new Error("bwrap is missing or cannot create namespaces; .ci/run installs bubblewrap")
/** Sandboxed where bwrap works: the executor then gathers everything from inside the sandbox. */
const SANDBOX = sandboxed ? ["--sandbox", "workspace-write"] : ["--sandbox", "off"]

const base = realpathSync(temporaryDirectory("clanka-context-"))
let server: FakeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

function git(dir: string, ...args: string[]): void {
  const result = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" })
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`)
}

/** Runs clanka on `workspace` with the user's config in `xdg`; the fake model finishes at once unless given turns. */
async function run(workspace: string, xdg: string, options: { args?: string[]; turns?: FakeTurn[] } = {}) {
  server = await startFakeModel("anthropic", options.turns ?? [{ blocks: [{ type: "execute", script: 'await taskComplete("done")' }] }])
  const result = await clanka(["run", "--json", "-C", workspace, "-m", "anthropic/claude-sonnet-4-5", ...(options.args ?? SANDBOX), "hello"], {
    env: { ...server.env, XDG_CONFIG_HOME: xdg, CLANKA_NO_SESSION: "1" },
  })
  return { ...result, requests: server.requests }
}

function today(): string {
  const now = new Date()
  const pad = (n: number) => String(n).padStart(2, "0")
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`
}

/** The first line of the Environment section, from this machine's own files and bash. */
function machineLine(): string {
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync("/etc/os-release", "utf8"))![1]
  const bash = spawnSync("bash", ["-c", 'echo "$BASH_VERSION"'], { encoding: "utf8" }).stdout.trim().replace(/\(.*$/, "")
  return `- ${pretty}, linux/${process.arch}, bash ${bash}; today is ${today()}`
}

const WORKING_RULES = `Working rules:
- Check your work with the project's own tests or build when it has them.
- Keep changes minimal and in the project's style.
- Never revert changes you did not make.
- No commits, pushes or other lasting git actions unless asked.`

test("the prompt tells the working rules, the machine, the git branch with its changed files, and the sandbox", async () => {
  const repo = join(base, "env-repo")
  write(join(repo, "a.txt"), "one\n")
  git(repo, "init", "-q", "-b", "feature-x")
  git(repo, "add", ".")
  git(repo, "commit", "-q", "-m", "first")
  writeFileSync(join(repo, "a.txt"), "two\n")
  writeFileSync(join(repo, "new.txt"), "new\n")
  const { code, stderr, requests } = await run(repo, join(base, "no-xdg"))
  expect(stderr).toBe("")
  expect(code).toBe(0)
  const system = requests[0]!.system
  expect(system).toContain(WORKING_RULES)
  const sandboxLine = sandboxed
    ? /- Sandbox: workspace-write( \(bwrap\))?, writes only in the working directory and \/tmp; network off$/
    : /- Sandbox: off, no sandbox; network on$/
  const section = system.slice(system.indexOf(`Working directory: ${repo}\n`))
  const lines = section.split("\n")
  expect(lines.slice(0, 5)).toEqual([`Working directory: ${repo}`, "", "Environment:", machineLine(), "- Git repository, branch feature-x, 2 changed files"])
  expect(lines[5]).toMatch(sandboxLine)
  // Nothing else follows: no instructions files and no skills here.
  expect(lines.length).toBe(6)
})

test.skipIf(!LANDLOCK.available)("under Landlock the prompt says that the temporary directory is $TMPDIR and that loopback is off too", async () => {
  const plain = join(base, "landlock")
  mkdirSync(plain)
  const { code, requests } = await run(plain, join(base, "no-xdg"), { args: ["--sandbox-backend", "landlock"] })
  expect(code).toBe(0)
  expect(requests[0]!.system).toEndWith("\n- Sandbox: workspace-write (landlock), writes only in the working directory and $TMPDIR (not /tmp); network off (loopback too)")
})

test("outside a repository the prompt says so; with the sandbox off and the network on, it says that", async () => {
  const plain = join(base, "plain")
  mkdirSync(plain)
  const { code, requests } = await run(plain, join(base, "no-xdg"), { args: ["--sandbox", "off"] })
  expect(code).toBe(0)
  expect(requests[0]!.system.endsWith(`Working directory: ${plain}\n\nEnvironment:\n${machineLine()}\n- Not in a git repository\n- Sandbox: off, no sandbox; network on`)).toBe(true)
})

test("a workspace deep in a repository: its branch, and every AGENTS.md from the root down, CLAUDE.md where there is none, the user's first", async () => {
  const repo = join(base, "chain")
  write(join(repo, "AGENTS.md"), "Root rule R1.\n")
  write(join(repo, "sub/CLAUDE.md"), "Claude rule C2.\n")
  write(join(repo, "sub/deeper/AGENTS.md"), "Deeper rule D3.\n")
  write(join(repo, "sub/deeper/CLAUDE.md"), "Not this one C4.\n")
  git(repo, "init", "-q", "-b", "trunk")
  const xdg = join(base, "chain-xdg")
  write(join(xdg, "clanka/AGENTS.md"), "User rule U0.\n")
  const workspace = join(repo, "sub/deeper")
  const { code, stderr, requests } = await run(workspace, xdg)
  expect(stderr).toBe("")
  expect(code).toBe(0)
  const system = requests[0]!.system
  // Untracked: AGENTS.md and sub/ (git counts an untracked directory once).
  expect(system).toContain(`\n- Git repository at ${repo}, branch trunk, 2 changed files\n`)
  // The whole line: a temporary directory's random name may hold "C4".
  expect(system).not.toContain("Not this one C4.")
  const instructions = [
    "Instructions from AGENTS.md files (the user's first, then the repository's from its root down; a later one wins where they differ):",
    `--- ${xdg}/clanka/AGENTS.md ---\nUser rule U0.`,
    `--- ${repo}/AGENTS.md ---\nRoot rule R1.`,
    `--- ${repo}/sub/CLAUDE.md ---\nClaude rule C2.`,
    `--- ${workspace}/AGENTS.md ---\nDeeper rule D3.`,
  ].join("\n\n")
  expect(system.endsWith(`\n\n${instructions}`)).toBe(true)
})

test("an AGENTS.md up the chain that is a symlink out of the repository is not read, and the user is told", async () => {
  const secret = join(base, "chain-secret.txt")
  writeFileSync(secret, "PRIVATE-7731\n")
  const repo = join(base, "chain-out")
  mkdirSync(join(repo, "app"), { recursive: true })
  git(repo, "init", "-q")
  symlinkSync(secret, join(repo, "AGENTS.md"))
  write(join(repo, "app/AGENTS.md"), "App rule.\n")
  const { code, stderr, requests } = await run(join(repo, "app"), join(base, "no-xdg"))
  expect(code).toBe(0)
  expect(stderr).toBe(`clanka: ../AGENTS.md is a symlink to ${secret}, outside the workspace; not read\n`)
  expect(requests[0]!.system).not.toContain("PRIVATE-7731")
  expect(requests[0]!.system).toContain(`--- ${repo}/app/AGENTS.md ---\nApp rule.`)
})

/** A repository with project skills (one shadowed, one pointing out) and a user with a skill of their own. */
function skillsFixture(name: string) {
  const repo = join(base, name)
  write(join(repo, ".agents/skills/review/SKILL.md"), "---\nname: review\ndescription: Review a change\n  before it is merged.\n---\n\nRead the diff, then checklist.md.\n")
  write(join(repo, ".agents/skills/review/checklist.md"), "- tests pass\n")
  write(join(repo, ".claude/skills/review/SKILL.md"), "---\nname: review\ndescription: The shadowed one.\n---\nNo.\n")
  write(join(repo, ".claude/skills/lint/SKILL.md"), '---\nname: lint\ndescription: "Run the linters: \\"make lint\\"."\n---\nmake lint\n')
  const outside = join(base, `${name}-outside/SKILL.md`)
  write(outside, "---\nname: evil\ndescription: Leaked.\n---\nSECRET-BODY\n")
  mkdirSync(join(repo, ".claude/skills/evil"), { recursive: true })
  symlinkSync(outside, join(repo, ".claude/skills/evil/SKILL.md"))
  git(repo, "init", "-q")
  const xdg = join(base, `${name}-xdg`)
  write(join(xdg, "clanka/skills/pdf/SKILL.md"), "---\nname: pdf\ndescription: Fill PDF forms.\n---\nRun scripts/fill.sh.\n")
  write(join(xdg, "clanka/skills/pdf/scripts/fill.sh"), "#!/bin/sh\necho filled by the user skill\n")
  chmodSync(join(xdg, "clanka/skills/pdf/scripts/fill.sh"), 0o755)
  // A link out of the user's skill folder: its target must not be copied to where scripts run.
  write(join(base, `${name}-key.pem`), "USER-KEY-MATERIAL\n")
  symlinkSync(join(base, `${name}-key.pem`), join(xdg, "clanka/skills/pdf/key.pem"))
  return { repo, xdg, outside }
}

test("skills: the prompt lists the project's and the user's; skill(name) gives the body and files that readFile and bash can use", async () => {
  const { repo, xdg, outside } = skillsFixture("skills")
  const script = [
    'const review = await skill("review")',
    "console.log(review.path, JSON.stringify(review.files), JSON.stringify(review.body))",
    "console.log(await readFile({ path: review.files[0] }))",
    'const pdf = await skill("pdf")',
    "console.log(pdf.body, pdf.files.length)",
    "console.log(await bash({ command: pdf.files[0] }))",
    'try { await skill("nope") } catch (error) { console.log(error.message) }',
    'try { await skill("evil") } catch (error) { console.log(error.message) }',
  ].join("\n")
  const { code, stderr, requests } = await run(repo, xdg, {
    turns: [{ blocks: [{ type: "execute", script }] }, { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] }],
  })
  expect(stderr).toBe(`clanka: ${repo}/.claude/skills/evil/SKILL.md is really ${outside}, outside the workspace; skill not read\n`)
  expect(code).toBe(0)
  const system = requests[0]!.system
  const section = [
    "Skills: instructions for particular tasks. Before a task a skill covers, load it and follow its body:",
    "/** Load a skill listed below: its instructions (body) and the paths of the files beside its SKILL.md (readFile them). */",
    "declare function skill(name: string): Promise<{ name: string; description: string; body: string; path: string; files: string[] }>",
    '- lint: Run the linters: "make lint".',
    "- pdf: Fill PDF forms.",
    "- review: Review a change before it is merged.",
  ].join("\n")
  expect(system).toContain(`\n\n${section}`)
  expect(system.endsWith(section)).toBe(true)
  expect(system).not.toContain("Leaked")
  const output = requests[1]!.toolResults[0]!
  const lines = output.split("\n")
  expect(lines[0]).toBe(`${repo}/.agents/skills/review/SKILL.md ${JSON.stringify([`${repo}/.agents/skills/review/checklist.md`])} "Read the diff, then checklist.md."`)
  expect(lines[1]).toBe("- tests pass")
  // fill.sh only: key.pem links out of the skill's folder.
  expect(lines.slice(3, 5)).toEqual(["Run scripts/fill.sh. 1", "filled by the user skill"])
  expect(output).toContain('skill: no skill "nope"; the skills are: lint, pdf, review\n')
  expect(output).toContain('skill: no skill "evil"; the skills are: lint, pdf, review\n')
  expect(output).not.toContain("SECRET-BODY")
})

test("clanka skills lists the project's and the user's skills; --json one object per line", async () => {
  const { repo, xdg, outside } = skillsFixture("skills-cli")
  const env = { XDG_CONFIG_HOME: xdg }
  const text = await clanka(["skills", "-C", repo], { env })
  expect(text.code).toBe(0)
  expect(text.stderr).toBe(`clanka: ${repo}/.claude/skills/evil/SKILL.md is really ${outside}, outside the workspace; skill not read\n`)
  expect(text.stdout).toBe(
    [
      'lint (project): Run the linters: "make lint".',
      "  .claude/skills/lint/SKILL.md",
      "pdf (user): Fill PDF forms.",
      `  ${xdg}/clanka/skills/pdf/SKILL.md`,
      "review (project): Review a change before it is merged.",
      "  .agents/skills/review/SKILL.md",
      "",
    ].join("\n"),
  )
  const json = await clanka(["skills", "-C", repo, "--json"], { env })
  expect(json.code).toBe(0)
  expect(json.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))).toEqual([
    { name: "lint", description: 'Run the linters: "make lint".', path: `${repo}/.claude/skills/lint/SKILL.md`, scope: "project" },
    { name: "pdf", description: "Fill PDF forms.", path: `${xdg}/clanka/skills/pdf/SKILL.md`, scope: "user" },
    { name: "review", description: "Review a change before it is merged.", path: `${repo}/.agents/skills/review/SKILL.md`, scope: "project" },
  ])
  mkdirSync(join(base, "plain-none"), { recursive: true })
  const none = await clanka(["skills", "-C", join(base, "plain-none")], { env: { XDG_CONFIG_HOME: join(base, "no-xdg") } })
  expect(none.stdout).toStartWith("No skills.")
})

test.skipIf(!sandboxed)("attack: a user skill whose folder a script can change (linked from the workspace) never carries a file from outside it, even swapped in mid-read", async () => {
  const repo = join(base, "race-repo")
  const xdg = join(base, "race-xdg")
  const folder = join(repo, "skills", "mine")
  write(join(folder, "SKILL.md"), "---\nname: mine\ndescription: A skill being written.\n---\nbody\n")
  write(join(folder, "data.txt"), "public data\n")
  git(repo, "init", "-q")
  // The user develops the skill in the project and links it into their skills.
  mkdirSync(join(xdg, "clanka", "skills"), { recursive: true })
  symlinkSync(folder, join(xdg, "clanka", "skills", "mine"))
  const key = join(base, "race-key.pem")
  write(key, "USER-KEY-MATERIAL\n")
  // Left running: data.txt is the file, then a link to the key, then the file again, on and on.
  const swap = `while :; do ln -sfn ${key} skills/mine/l && mv -T skills/mine/l skills/mine/data.txt; echo 'public data' > skills/mine/f && mv -T skills/mine/f skills/mine/data.txt; done`
  const script = [
    `await bash({ command: ${JSON.stringify(`setsid sh -c ${JSON.stringify(swap)} </dev/null >/dev/null 2>&1 &`)} })`,
    "let leaked = 0, read = 0",
    // A file renamed away mid-listing may fail a call: only what crossed counts.
    'for (let i = 0; i < 400; i++) try { for (const file of (await skill("mine")).files) { const text = await readFile({ path: file }); if (text?.includes("KEY-MATERIAL")) leaked++; if (text?.includes("public")) read++ } } catch {}',
    'console.log(leaked, read > 0)',
  ].join("\n")
  const { code, requests } = await run(repo, xdg, {
    turns: [{ blocks: [{ type: "execute", script }] }, { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] }],
  })
  expect(code).toBe(0)
  expect(requests[1]!.toolResults[0]).toBe("0 true\n")
}, 60_000)

test("attack: a skill folder named with escape sequences and a newline is one warning line that a terminal shows, not obeys", async () => {
  const repo = join(base, "escape-repo")
  const folder = join(repo, ".claude", "skills", "x\x1b]0;owned\x07\n::error::y")
  write(join(folder, "SKILL.md"), "---\nname: y\n---\nno description\n")
  git(repo, "init", "-q")
  const { code, stderr } = await run(repo, join(base, "escape-xdg"))
  expect(code).toBe(0)
  expect(stderr).toBe(`clanka: ${repo}/.claude/skills/x^[]0;owned^G^J::error::y/SKILL.md: no front matter with a description (---, name: …, description: …, ---); skill not listed\n`)
})
