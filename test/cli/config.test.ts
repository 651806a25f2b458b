import { describe, expect, test, setDefaultTimeout } from "bun:test"
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

// Each test starts real MCP servers (node) and clanka processes; a loaded machine is slow.
setDefaultTimeout(90_000)

const root = temporaryDirectory("clanka-config-")
const repo = join(root, "repo")
const sub = join(repo, "packages", "app")
const xdg = join(root, "xdg")
mkdirSync(join(repo, ".git"), { recursive: true })
mkdirSync(sub, { recursive: true })
// The writable directory sub's clanka.json names (a writable root must exist).
mkdirSync(join(sub, "cache"))
mkdirSync(join(xdg, "clanka"), { recursive: true })
// Above the repository root: never read.
writeFileSync(join(root, "clanka.json"), JSON.stringify({ model: "outside/ignored" }))
writeFileSync(join(xdg, "clanka", "config.json"), JSON.stringify({ model: "user/model", maxTurns: 7, mcpServers: { notes: { command: "user-notes" } } }))
writeFileSync(join(repo, ".mcp.json"), JSON.stringify({ mcpServers: { notes: { command: "repo-notes", args: ["--dir", "${NOTES_DIR:-/srv/notes}"] } }, otherAgentKey: true }))
writeFileSync(join(repo, "clanka.json"), JSON.stringify({ sandbox: "read-only", model: "repo/model" }))
writeFileSync(join(sub, "clanka.json"), JSON.stringify({ model: "app/model", writable: ["cache"] }))
// A fresh state directory: no project is trusted unless a test says so.
const env = { XDG_CONFIG_HOME: xdg, CLANKA_HOME: join(root, "state"), CLANKA_MODEL: undefined, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, CLANKA_TRUST_PROJECT: undefined }
const trusted = { ...env, CLANKA_TRUST_PROJECT: "1" }
const userFile = join(xdg, "clanka", "config.json")

describe("configuration files", () => {
  test("clanka config prints the merged values, nearest file first, with each value's source and each file's trust", async () => {
    // Trusted for this run: the project's files count as the user's own.
    const result = await clanka(["config", "-C", sub], { env: { ...trusted, NOTES_DIR: "/data" } })
    expect(result).toEqual({
      code: 0,
      stderr: "",
      stdout: [
        `# ${userFile}: user`,
        `# ${join(repo, ".mcp.json")}: trusted`,
        `# ${join(repo, "clanka.json")}: trusted`,
        `# ${join(sub, "clanka.json")}: trusted`,
        `model = "app/model"  # ${join(sub, "clanka.json")}`,
        `maxTurns = 7  # ${userFile}`,
        // As written: a variable is expanded only where the server starts.
        `mcpServers.notes = {"command":"repo-notes","args":["--dir","\${NOTES_DIR:-/srv/notes}"]}  # ${join(repo, ".mcp.json")}`,
        `sandbox = "read-only"  # ${join(repo, "clanka.json")}`,
        `writable = ["${join(sub, "cache")}"]  # ${join(sub, "clanka.json")}`,
        "",
      ].join("\n"),
    })
    const json = JSON.parse((await clanka(["config", "-C", sub, "--json", "--trust-project"], { env: { ...env, NOTES_DIR: "/data" } })).stdout)
    expect(json.config.mcpServers.notes.args).toEqual(["--dir", "${NOTES_DIR:-/srv/notes}"])
    expect(json.files).toEqual([
      { path: userFile, trust: "user", ignored: [] },
      { path: join(repo, ".mcp.json"), trust: "trusted", ignored: [] },
      { path: join(repo, "clanka.json"), trust: "trusted", ignored: [] },
      { path: join(sub, "clanka.json"), trust: "trusted", ignored: [] },
    ])
  })

  test("clanka config marks an untrusted project's files and the values they may not set", async () => {
    const result = await clanka(["config", "-C", sub], { env: { ...env, NOTES_DIR: "/data" } })
    expect(result).toEqual({
      code: 0,
      stderr: "",
      stdout: [
        `# ${userFile}: user`,
        `# ${join(repo, ".mcp.json")}: untrusted`,
        `# ${join(repo, "clanka.json")}: untrusted`,
        `# ${join(sub, "clanka.json")}: untrusted`,
        `model = "app/model"  # ${join(sub, "clanka.json")}`,
        `maxTurns = 7  # ${userFile}`,
        `mcpServers.notes = {"command":"user-notes"}  # ${userFile}`,
        `sandbox = "read-only"  # ${join(repo, "clanka.json")}`,
        `mcpServers.notes = {"command":"repo-notes","args":["--dir","\${NOTES_DIR:-/srv/notes}"]}  # ${join(repo, ".mcp.json")} (ignored: untrusted)`,
        `writable = ["${join(sub, "cache")}"]  # ${join(sub, "clanka.json")} (ignored: untrusted)`,
        `# untrusted project files may only narrow (model, output, a stricter sandbox, network off); trust them with: clanka trust ${sub}`,
        "",
      ].join("\n"),
    })
    const json = JSON.parse((await clanka(["config", "-C", sub, "--json"], { env })).stdout)
    expect(json.files.map((file: { trust: string; ignored: string[] }) => [file.trust, file.ignored])).toEqual([
      ["user", []],
      ["untrusted", ["mcpServers"]],
      ["untrusted", []],
      ["untrusted", ["writable"]],
    ])
  })

  test("a mistake is exit 2 naming the file and the key", async () => {
    const bad = join(root, "bad")
    mkdirSync(bad, { recursive: true })
    const cases: [string, string][] = [
      [JSON.stringify({ modle: "x" }), 'unknown key "modle"'],
      [JSON.stringify({ sandbox: "none" }), "sandbox: must be one of workspace-write, read-only, off"],
      [JSON.stringify({ mcpServers: { gh: { command: 3 } } }), "mcpServers.gh.command: expected string but received 3"],
      [JSON.stringify({ mcpServers: { "my server": { command: "x" } } }), "mcpServers.my server: server names are letters, digits, _ and - (they become mcp.<name> in scripts)"],
      [JSON.stringify({ mcpServers: { gh: { type: "http", url: "ftp://x" } } }), "mcpServers.gh.url: the url must be an http(s) URL"],
      ["{", "not JSON: JSON Parse error: Expected '}'"],
    ]
    for (const [text, message] of cases) {
      writeFileSync(join(bad, "clanka.json"), text)
      // Trusted or not, a file clanka cannot read is a mistake to fix.
      for (const command of [["config"], ["exec", "-e", "1"], ["run", "task"]]) {
        for (const withTrust of [env, trusted]) {
          const result = await clanka([...command, "-C", bad], { env: withTrust })
          expect({ command: command[0], ...result }).toEqual({ command: command[0], code: 2, stdout: "", stderr: `clanka: ${join(bad, "clanka.json")}: ${message}\n` })
        }
      }
    }
  })

  test("a file that is JSON but not an object is exit 2 saying what shape was expected", async () => {
    const dir = join(root, "shapes")
    mkdirSync(dir, { recursive: true })
    const cases: [string, string][] = [
      ['"model"', "expected a JSON object, found a string"],
      ["null", "expected a JSON object, found null"],
      ['[{"model":"x"}]', "expected a JSON object, found an array"],
      ["[]", "expected a JSON object, found an array"],
      ["3", "expected a JSON object, found a number"],
      ["true", "expected a JSON object, found true"],
      ['{"mcpServers":[]}', "mcpServers: expected a JSON object, found an array"],
      ['{"mcpServers":null}', "mcpServers: expected a JSON object, found null"],
    ]
    for (const name of ["clanka.json", ".mcp.json"]) {
      for (const [text, message] of cases) {
        writeFileSync(join(dir, name), text)
        for (const command of [["config"], ["exec", "-e", "1"]]) {
          const result = await clanka([...command, "-C", dir], { env })
          expect({ name, text, command: command[0], ...result }).toEqual({ name, text, command: command[0], code: 2, stdout: "", stderr: `clanka: ${join(dir, name)}: ${message}\n` })
        }
      }
      // An empty object is a file with nothing in it: listed, not "none was found".
      writeFileSync(join(dir, name), "{}")
      expect(await clanka(["config", "-C", dir], { env: trusted })).toEqual({ code: 0, stderr: "", stdout: `# ${userFile}: user\n# ${join(dir, name)}: trusted\nmodel = "user/model"  # ${userFile}\nmaxTurns = 7  # ${userFile}\nmcpServers.notes = {"command":"user-notes"}  # ${userFile}\n` })
      rmSync(join(dir, name))
    }
  })

  test("an unset variable in a trusted server is exit 2 where servers start; clanka config prints it as written", async () => {
    const dir = join(root, "unset")
    mkdirSync(dir, { recursive: true })
    const server = { gh: { command: "x", env: { T: "${UNSET_VARIABLE_FOR_TEST}" } } }
    writeFileSync(join(dir, "clanka.json"), JSON.stringify({ mcpServers: server }))
    const message = "mcpServers.gh.env.T: ${UNSET_VARIABLE_FOR_TEST} is not set; set the variable or give a default with ${UNSET_VARIABLE_FOR_TEST:-value}"
    for (const command of [["exec", "-e", "1"], ["run", "task"], ["tools"]]) {
      const result = await clanka([...command, "-C", dir], { env: trusted })
      expect({ command: command[0], ...result }).toEqual({ command: command[0], code: 2, stdout: "", stderr: `clanka: ${join(dir, "clanka.json")}: ${message}\n` })
    }
    const shown = await clanka(["config", "-C", dir], { env: trusted })
    expect(shown).toMatchObject({ code: 0, stderr: "" })
    expect(shown.stdout).toContain(`mcpServers.gh = ${JSON.stringify(server.gh)}  # ${join(dir, "clanka.json")}\n`)
  })

  test("clanka config shows CLANKA_MODEL over the files' model, as run uses it", async () => {
    const result = await clanka(["config", "-C", sub], { env: { ...env, CLANKA_MODEL: "openai/gpt-5" } })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('model = "openai/gpt-5"  # CLANKA_MODEL\n')
    expect(result.stdout).not.toContain('"app/model"')
  })

  test("a model in a file that clanka run cannot use is exit 2 naming the file and the key", async () => {
    const dir = join(root, "badmodel")
    mkdirSync(dir, { recursive: true })
    const file = join(dir, "clanka.json")
    writeFileSync(file, JSON.stringify({ model: "nonsense" }))
    expect(await clanka(["run", "-C", dir, "task"], { env })).toEqual({
      code: 2,
      stdout: "",
      stderr: `clanka: ${file}: model: invalid model "nonsense": expected provider/model[:effort], e.g. anthropic/claude-sonnet-4-5 or openai/gpt-5.2:high\n`,
    })
    writeFileSync(file, JSON.stringify({ model: "anthropic/claude-sonnet-4-5", subagentModel: "nowhere/x" }))
    const sub = await clanka(["run", "-C", dir, "task"], { env: { ...env, ANTHROPIC_API_KEY: "sk-test" } })
    expect(sub).toMatchObject({ code: 2, stdout: "" })
    expect(sub.stderr).toStartWith(`clanka: ${file}: subagentModel: unknown model provider "nowhere"`)
  })

  test("flags beat files: the model, the sandbox", async () => {
    // The model comes from the nearest file…
    expect((await clanka(["run", "-C", sub, "task"], { env: trusted })).stderr).toStartWith(`clanka: ${join(sub, "clanka.json")}: model: unknown model provider "app": use one of anthropic`)
    // …unless CLANKA_MODEL or --model says otherwise.
    expect((await clanka(["run", "-C", sub, "task"], { env: { ...trusted, CLANKA_MODEL: "env/model" } })).stderr).toContain('unknown model provider "env"')
    expect((await clanka(["run", "-C", sub, "-m", "flag/model", "task"], { env: trusted })).stderr).toContain('unknown model provider "flag"')
    // The repository's clanka.json makes the sandbox read-only (untrusted, it may narrow); --sandbox off beats it.
    const write = `await writeFile({ path: "out.txt", content: "x" }); console.log("written")`
    const readOnly = await clanka(["exec", "-C", sub, "-e", write], { env })
    expect(readOnly.code).toBe(1)
    expect(readOnly.stderr).toContain("the sandbox is read-only")
    const notice = `clanka: ignored in the untrusted project config: ../../.mcp.json: mcpServers (1); clanka.json: writable; trust it with: clanka trust ${sub} (or pass --trust-project for this run)\n`
    // (The user's MCP server starts, not the untrusted project's; it cannot here: one line, and the script runs.)
    expect(await clanka(["exec", "-C", sub, "--sandbox", "off", "-e", write], { env })).toEqual({
      code: 0,
      stdout: "written\n",
      stderr: notice + 'clanka: MCP server "notes" failed: cannot run its command: user-notes was not found; its tools are missing\n',
    })
    // Trusted, the project's server is the one that starts.
    expect(await clanka(["exec", "-C", sub, "--sandbox", "off", "--trust-project", "-e", write], { env })).toEqual({
      code: 0,
      stdout: "written\n",
      stderr: 'clanka: MCP server "notes" failed: cannot run its command: repo-notes was not found; its tools are missing\n',
    })
  })
})

test("clanka help lists config and mcp, and the configuration files", async () => {
  const { stdout } = await clanka(["--help"])
  expect(stdout).toContain("\n  config      Print the merged configuration and where each value came from\n")
  expect(stdout).toContain("\n  mcp         Serve execute (code mode with clanka's tools) as an MCP server")
  // A term too long for its column sits on its own line; its description follows under the column.
  expect(stdout).toMatch(/\n {2}\$XDG_CONFIG_HOME\/clanka\/config\.json\n +the user's defaults \(below the project's\)\n/)
  for (const command of ["config", "mcp"]) expect((await clanka(["help", command])).stdout).toContain(`USAGE clanka ${command}`)
})

test("attack: a FIFO or a device where a project's config file goes (a script can leave one) is exit 2 at once, not a hang", async () => {
  const project = join(root, "special")
  mkdirSync(join(project, ".git"), { recursive: true })
  mkdirSync(join(project, "fifo"))
  mkdirSync(join(project, "zero"))
  Bun.spawnSync(["mkfifo", join(project, "fifo", "clanka.json")])
  symlinkSync("/dev/zero", join(project, "zero", ".mcp.json"))
  for (const [dir, file] of [["fifo", "clanka.json"], ["zero", ".mcp.json"]] as const) {
    const result = await clanka(["run", "-C", join(project, dir), "hi"], { env, timeoutMs: 10_000 })
    expect(result).toEqual({ code: 2, stdout: "", stderr: `clanka: ${join(project, dir, file)}: not a regular file (a FIFO, socket or device); remove it\n` })
  }
})

test("attack: an untrusted project's config file linked to a file that is not JSON (a token, an env file) names no word of it in the error", async () => {
  const project = join(root, "linked")
  mkdirSync(join(project, ".git"), { recursive: true })
  // Files of the machine a checkout's symlink may lead to: the error goes to a CI log anyone may read.
  const secrets = join(root, "secrets")
  mkdirSync(secrets)
  writeFileSync(join(secrets, "token"), "ghs_L1nkedTokenSecret\n")
  writeFileSync(join(secrets, ".env"), "ANTHROPIC_API_KEY=sk-ant-secret\n")
  for (const [name, target] of [["clanka.json", "token"], [".mcp.json", "token"], ["clanka.json", ".env"]] as const) {
    rmSync(join(project, "clanka.json"), { force: true })
    rmSync(join(project, ".mcp.json"), { force: true })
    symlinkSync(join(secrets, target), join(project, name))
    const result = await clanka(["run", "-C", project, "hi"], { env })
    expect(result).toEqual({ code: 2, stdout: "", stderr: `clanka: ${join(project, name)}: not JSON: JSON Parse error: Unexpected identifier\n` })
  }
  // The user's own file, and a project the user trusts, keep the word that helps find the mistake.
  rmSync(join(project, "clanka.json"))
  writeFileSync(join(project, "clanka.json"), "tru\n")
  expect((await clanka(["run", "-C", project, "hi"], { env: trusted })).stderr).toBe(`clanka: ${join(project, "clanka.json")}: not JSON: JSON Parse error: Unexpected identifier "tru"\n`)
})
