/**
 * action.yml and the workflow files pass action-validator (GitHub's schemas, bundled in its wasm:
 * no network), and the wiring the runner would do, which no test here executes, is checked
 * against the scripts it wires: inputs reach the scripts, outputs come from them, keys go only to
 * the run step, and no input is spliced into a shell command.
 */
import { expect, test } from "bun:test"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, ROOT } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

const VALIDATOR = join(ROOT, "node_modules/@action-validator/cli/cli.mjs")
const directory = temporaryDirectory("clanka-workflows-")

async function validate(file: string) {
  const child = Bun.spawn([BUN, VALIDATOR, file], { cwd: ROOT, stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, output: stdout + stderr }
}

const workflows = readdirSync(join(ROOT, ".github/workflows")).map((name) => `.github/workflows/${name}`)

test("action.yml and every workflow file pass action-validator; a broken one does not", async () => {
  expect(workflows).toContain(".github/workflows/ci.yml")
  expect(workflows).toContain(".github/workflows/release.yml")
  for (const file of ["action.yml", ...workflows]) {
    expect({ file, ...(await validate(file)) }).toEqual({ file, code: 0, output: "" })
  }
  // The linter does fail: a composite step without its shell, a job step with an unknown key.
  const action = join(directory, "action.yml")
  writeFileSync(action, readFileSync(join(ROOT, "action.yml"), "utf8").replace("      shell: bash\n", ""))
  expect((await validate(action)).code).toBe(1)
  const workflow = join(directory, "ci.yml")
  writeFileSync(workflow, readFileSync(join(ROOT, ".github/workflows/ci.yml"), "utf8").replace("run: sudo", "runs: sudo"))
  const broken = await validate(workflow)
  expect(broken.code).toBe(1)
  expect(broken.output).toContain("Additional property 'runs' is not allowed")
})

interface Step {
  id?: string
  name?: string
  if?: string
  shell?: string
  run?: string
  uses?: string
  env?: Record<string, string>
  with?: Record<string, string>
}
const action = Bun.YAML.parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as {
  inputs: Record<string, { default?: string }>
  outputs: Record<string, { value: string }>
  runs: { using: string; steps: Step[] }
}
const steps = action.runs.steps
const script = (name: string) => readFileSync(join(ROOT, "action", name), "utf8")

test("action.yml: every input is used, every INPUT_ a script reads is mapped, every output is written by run.sh", () => {
  expect(action.runs.using).toBe("composite")
  const text = JSON.stringify(steps)
  for (const input of Object.keys(action.inputs)) expect({ input, used: text.includes(`inputs.${input}`) }).toEqual({ input, used: true })

  for (const [file, id] of [["install.sh", "install"], ["run.sh", "run"]] as const) {
    const step = steps.find((s) => s.id === id)!
    expect(step.run).toBe(`sh "$GITHUB_ACTION_PATH/action/${file}"`)
    const read = new Set(script(file).match(/\bINPUT_[A-Z_]+/g))
    const mapped = new Set(Object.keys(step.env ?? {}).filter((name) => name.startsWith("INPUT_")))
    expect({ file, inputs: [...read].sort() }).toEqual({ file, inputs: [...mapped].sort() })
  }
  expect(steps.find((s) => s.id === "run")!.env!.CLANKA_BIN).toBe("${{ steps.install.outputs.path }}")

  const written = new Set([...script("run.sh").matchAll(/^output ([a-z-]+) /gm)].map((m) => m[1]))
  expect(action.outputs.path!.value).toBe("${{ steps.install.outputs.path }}")
  for (const [name, output] of Object.entries(action.outputs)) {
    if (name === "path") continue
    expect(output.value).toBe(`\${{ steps.run.outputs.${name} }}`)
    expect({ name, written: written.has(name) }).toEqual({ name, written: true })
  }
  // Every step an expression names exists.
  for (const [, id] of text.matchAll(/steps\.([a-z-]+)\.outputs/g)) expect(steps.map((s) => s.id)).toContain(id)
})

test("action.yml: no input is spliced into a command; the keys go only to the run step's environment", () => {
  for (const step of steps) {
    if (step.run !== undefined) expect(step.run).not.toContain("${{")
  }
  for (const key of ["anthropic-api-key", "openai-api-key"]) {
    const users = steps.filter((step) => JSON.stringify(step).includes(`inputs.${key}`))
    expect(users.map((step) => step.id)).toEqual(["run"])
    expect(Object.values(users[0]!.env!).filter((value) => value.includes(`inputs.${key}`))).toHaveLength(1)
  }
  // The transcript is uploaded as clanka-session-<id>, the name resume downloads.
  const upload = steps.find((step) => step.uses?.startsWith("actions/upload-artifact@"))!
  expect(upload.with!.name).toBe("clanka-session-${{ steps.run.outputs.session-id }}")
  expect(upload.if).toContain("!cancelled()")
  const downloads = steps.filter((step) => step.uses?.startsWith("actions/download-artifact@"))
  expect(downloads.map((step) => step.with!.name)).toEqual(["clanka-session-${{ inputs.resume }}", "clanka-session-${{ inputs.resume }}"])
  expect(downloads.map((step) => step.with!.path)).toEqual(Array(2).fill(steps.find((s) => s.id === "run")!.env!.INPUT_RESUME_DIR))
})

test("ci.yml runs .ci/run; release.yml builds with --all and attaches the assets install.sh downloads", () => {
  const ci = readFileSync(join(ROOT, ".github/workflows/ci.yml"), "utf8")
  expect(ci).toContain("bash .ci/run")
  const release = Bun.YAML.parse(readFileSync(join(ROOT, ".github/workflows/release.yml"), "utf8")) as any
  expect(release.on.push.tags).toEqual(["v*"])
  const runs: string = Object.values(release.jobs as Record<string, { steps: Step[] }>).flatMap((job) => job.steps.map((step) => step.run ?? "")).join("\n")
  expect(runs).toContain("bun scripts/build.ts --all")
  // The targets scripts/build.ts builds are the assets released and the ones install.sh asks for.
  const targets = [...readFileSync(join(ROOT, "scripts/build.ts"), "utf8").matchAll(/^ {2}"([a-z]+-[a-z0-9]+)": "bun-/gm)].map((m) => m[1]!)
  const assets = targets.map((name) => `clanka-${name}${name.startsWith("windows") ? ".exe" : ""}`)
  expect(assets).toEqual(["clanka-linux-x64", "clanka-linux-arm64", "clanka-darwin-x64", "clanka-darwin-arm64", "clanka-windows-x64.exe"])
  expect(runs).toContain(`assets="${assets.join(" ")} SHA256SUMS"`)
  expect(runs).toContain('gh release upload "$TAG" $assets --clobber')
})

test("release.yml: the job that installs the dependencies and builds can write nothing; only the publish job, which runs no project code, can", () => {
  const release = Bun.YAML.parse(readFileSync(join(ROOT, ".github/workflows/release.yml"), "utf8")) as any
  // npm ci runs the install scripts of every dependency: a token there that can write could
  // change the repository or the release.
  expect(release.permissions).toEqual({ contents: "read" })
  const jobs = Object.entries(release.jobs as Record<string, { permissions?: Record<string, string>; steps: Step[]; needs?: string }>)
  for (const [name, job] of jobs) {
    const runsCode = job.steps.some((step) => /npm|bun|node_modules|dist\/clanka/.test(step.run?.split("\n").filter((line) => !line.includes("sha256sum")).join("\n") ?? ""))
    const writes = Object.values(job.permissions ?? release.permissions).includes("write")
    expect({ name, runsCode, writes: runsCode && writes }).toEqual({ name, runsCode, writes: false })
    // A checkout in a job that runs the project's code keeps no token in .git/config.
    for (const step of job.steps.filter((step) => step.uses?.startsWith("actions/checkout@"))) expect({ name, with: step.with }).toEqual({ name, with: { ...step.with, "persist-credentials": false } as never })
  }
  const publish = jobs.find(([, job]) => Object.values(job.permissions ?? {}).includes("write"))!
  expect(publish[1].needs).toBe("build")
  expect(publish[1].steps.some((step) => step.uses?.startsWith("actions/checkout@"))).toBe(false)
})
