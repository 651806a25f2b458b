// A stdio MCP server's token, tried as a hostile script would: the server runs beside the scripts'
// sandbox (its own bubblewrap, its own pid namespace), so no route a script has to other
// processes' environment, command line or memory finds it; its tools still work from scripts, and
// the server itself still cannot write outside the workspace. Locally and over --ssh.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { osSandboxWorks } from "../../src/executor/os-sandbox.ts"
import { clanka } from "../support/cli.ts"
import { EVERYTHING } from "../support/mcp-everything.ts"
import { isRunning } from "../support/processes.ts"
import { sshdAvailable, startSshProject, type SshProject } from "../support/sshd.ts"

setDefaultTimeout(120_000)

const available = osSandboxWorks()
if (!available && process.env.CI) throw new Error("bwrap is missing or cannot create namespaces; .ci/run installs bubblewrap")

// Built at run time, so the secret is in no script's text and no test's command line.
const SECRET = ["mcp", "token", "7f3a9c", "only-the-server-knows"].join("-")

// Outside /tmp (whose sandbox copy is private): the workspace's parent is really outside.
const root = mkdtempSync("/var/tmp/clanka-mcp-secrets-")
const workspace = join(root, "app")
const outside = join(root, "outside")
const xdg = join(root, "xdg")
mkdirSync(workspace)
mkdirSync(outside)
mkdirSync(join(xdg, "clanka"), { recursive: true })
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The user's own server with a token; at its start it tries to write outside its workspace too. */
function vault(outsideDir: string) {
  const start = `echo pwned > '${join(outsideDir, "server-was-here")}'; echo ok > server-in-workspace; exec node '${EVERYTHING}' stdio`
  return { command: "sh", args: ["-c", start], env: { SERVER_TOKEN: SECRET } }
}
writeFileSync(join(xdg, "clanka", "config.json"), JSON.stringify({ mcpServers: { vault: vault(outside) } }))

/** Every route a script has to another process's secrets; each prints what it found. */
const ATTACK = `
const MEM_SCAN = [
  "import os, re",
  "found = set()",
  "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:",
  "    try:",
  "        maps = open('/proc/%s/maps' % pid).read().splitlines()",
  "        mem = open('/proc/%s/mem' % pid, 'rb', 0)",
  "    except Exception:",
  "        continue",
  "    for line in maps:",
  "        parts = line.split()",
  "        if 'r' not in parts[1] or (len(parts) > 5 and parts[5] in ('[vvar]', '[vsyscall]')):",
  "            continue",
  "        start, end = [int(x, 16) for x in parts[0].split('-')]",
  "        if end - start > 64 * 1024 * 1024:",
  "            continue",
  "        try:",
  "            mem.seek(start)",
  "            data = mem.read(end - start)",
  "        except Exception:",
  "            continue",
  "        for m in re.finditer(rb'SERVER_TOKEN[^a-z]{1,8}([a-z0-9-]{8,60})', data):",
  "            found.add(m.group(1).decode())",
  "print('scanned', sorted(found))",
].join("\\n")
const tries = {
  procEnviron: () => bash({ command: "cat /proc/*/environ 2>/dev/null | tr '\\\\0' '\\\\n' | grep SERVER_TOKEN || echo none" }),
  ps: () => bash({ command: "ps e -ww -A 2>&1 | grep SERVER_TOKEN || echo none" }),
  procCmdline: () => bash({ command: "cat /proc/*/cmdline 2>/dev/null | tr '\\\\0' ' '" }),
  memory: async () => {
    await writeFile({ path: "scan.py", content: MEM_SCAN })
    return bash({ command: "python3 scan.py 2>&1", timeout: 120000 })
  },
  readFileEnviron: async () => {
    const pids = String(await bash({ command: "ls /proc | grep -E '^[0-9]+$'" })).split("\\n").filter((pid) => /^[0-9]+$/.test(pid))
    const found = []
    for (const pid of pids) {
      try { found.push(String(await readFile({ path: "/proc/" + pid + "/environ" }))) } catch {}
    }
    return pids.length + " pids " + found.filter((text) => text.includes("SERVER_TOKEN")).join(" ")
  },
}
for (const [name, attempt] of Object.entries(tries)) {
  try { console.log("route", name, JSON.stringify(await attempt())) } catch (error) { console.log("route", name, "failed:", error.message) }
}
console.log(await mcp.vault.echo({ message: "the server still answers" }))
`

/** Processes on this machine that hold the token in their environment (the server, while it runs). */
function holders(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/environ`, "utf8").includes(`SERVER_TOKEN=${SECRET}`) && isRunning(Number(name))
      } catch {
        return false
      }
    })
    .map(Number)
}

/** The run is over: its server is gone too. */
async function expectServerGone() {
  for (let i = 0; i < 40 && holders().length > 0; i++) await Bun.sleep(50)
  expect(holders()).toEqual([])
}

function expectContained(output: string, workspaceDir: string, outsideDir: string) {
  if (process.env.SHOW) console.log(output)
  // Every route ran (none failed before it could look), and none found the token.
  for (const name of ["procEnviron", "ps", "procCmdline", "memory", "readFileEnviron"]) expect(output).toContain(`route ${name} `)
  expect(output).toContain("scanned")
  expect(output).not.toContain(SECRET)
  expect(output).toContain("Echo: the server still answers\n")
  // The server ran in its own sandbox: its workspace is writable, the directory beside it is not.
  expect(existsSync(join(outsideDir, "server-was-here"))).toBe(false)
  expect(readFileSync(join(workspaceDir, "server-in-workspace"), "utf8")).toBe("ok\n")
}

describe.skipIf(!available)("a stdio MCP server's secrets (bubblewrap)", () => {
  test("clanka exec: no script route reads the server's token; its tools still work", async () => {
    const result = await clanka(["exec", "-C", workspace, "-e", ATTACK], { env: { XDG_CONFIG_HOME: xdg }, timeoutMs: 110_000 })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expectContained(result.stdout, workspace, outside)
    await expectServerGone()
  })
})

const sshAvailable = available && sshdAvailable()
let host: SshProject
beforeAll(async () => {
  if (!sshAvailable) return
  host = await startSshProject("clanka-mcp-secrets-ssh-", { "README.md": "remote\n" })
  const remoteOutside = join(host.remoteDir, "..", "outside")
  mkdirSync(remoteOutside)
  mkdirSync(join(host.local, ".xdg", "clanka"), { recursive: true })
  writeFileSync(join(host.local, ".xdg", "clanka", "config.json"), JSON.stringify({ mcpServers: { vault: vault(remoteOutside) } }))
})
afterAll(async () => {
  if (sshAvailable) await host.stop()
})

describe.skipIf(!sshAvailable)("a stdio MCP server's secrets over --ssh", () => {
  test("the server runs beside the far sandbox: no script route reads its token; its tools still work", async () => {
    const result = await clanka(["exec", "--ssh", host.target, "--remote-bin", host.remoteBin, "-e", ATTACK], {
      cwd: host.local,
      env: { ...host.env, XDG_CONFIG_HOME: join(host.local, ".xdg") },
      timeoutMs: 110_000,
    })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expectContained(result.stdout, host.remoteDir, join(host.remoteDir, "..", "outside"))
    await expectServerGone()
  })
})
