// Which OS sandbox runs, through the real CLI: bubblewrap, else Landlock where bubblewrap cannot
// create its namespaces (here a `bwrap` on PATH that fails the way AppArmor makes it fail on
// Ubuntu 24.04), else none, and then the default refuses to run scripts rather than run them
// unsandboxed. --sandbox-backend (CLANKA_SANDBOX_BACKEND) forces one.
import { afterAll, describe, expect, test } from "bun:test"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { BUN, clanka, type CliResult, MAIN, ROOT } from "../support/cli.ts"
import { startFakeModel } from "../support/fake-model.ts"
import { BWRAP, LANDLOCK } from "../support/sandbox-backends.ts"

const root = mkdtempSync("/var/tmp/clanka-backend-")
const workspace = join(root, "app")
const shims = join(root, "bin")
mkdirSync(workspace)
mkdirSync(shims)
afterAll(() => rmSync(root, { recursive: true, force: true }))

// What bwrap prints where AppArmor restricts unprivileged user namespaces.
writeFileSync(join(shims, "bwrap"), "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
chmodSync(join(shims, "bwrap"), 0o755)
/** The environment with the failing bwrap first on PATH. */
const apparmor = { PATH: `${shims}:${process.env.PATH}`, CLANKA_BWRAP: undefined, CLANKA_SANDBOX_BACKEND: undefined }

/** A write outside the workspace, and what the script sees of its sandbox. */
const PROBE = `await bash({ command: "touch ../escaped" }).catch(() => console.log("write refused"))
console.log(await bash({ command: "grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status | tr -s '\\\\t\\\\n' '  '" }))`

/** clanka as on a kernel without Landlock (test/support/no-landlock.ts). */
async function clankaWithoutLandlock(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  const child = Bun.spawn([BUN, join(ROOT, "test/support/no-landlock.ts"), BUN, MAIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 20_000,
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  return { code, stdout, stderr }
}

describe.skipIf(!LANDLOCK.available)("where bubblewrap cannot create namespaces", () => {
  test("clanka run takes Landlock, says so in AgentStart, and the script is sandboxed", async () => {
    const server = await startFakeModel("anthropic", [
      { blocks: [{ type: "execute", script: PROBE }] },
      { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] },
    ])
    try {
      const result = await clanka(["run", "--json", "-C", workspace, "-m", "anthropic/claude-sonnet-4-5", "probe"], { env: { ...server.env, ...apparmor } })
      expect(result.stderr).toBe("")
      expect(result.code).toBe(0)
      const events = result.stdout.trimEnd().split("\n").map((line) => JSON.parse(line))
      expect(events[0]).toMatchObject({ _tag: "AgentStart", sandbox: { mode: "workspace-write", network: false, backend: "landlock" } })
      expect(events.find((event) => event._tag === "ScriptOutput").output).toBe("write refused\nNoNewPrivs: 1 Seccomp: 2 \n")
      expect(existsSync(join(root, "escaped"))).toBe(false)
      // No early first request built for a bubblewrap that cannot start: one request per turn.
      expect(server.requests.length).toBe(2)
      expect(server.requests[0]!.system).toContain("(landlock)")
    } finally {
      await server.close()
    }
  })

  test("clanka exec and clanka executor --sandbox (started by hand or over ssh) take Landlock too", async () => {
    const exec = await clanka(["exec", "-C", workspace, "-e", PROBE], { env: apparmor })
    expect(exec).toEqual({ code: 0, stdout: "write refused\nNoNewPrivs: 1 Seccomp: 2 \n", stderr: "" })
    const executor = [BUN, MAIN, "executor", "-C", workspace, "--sandbox", "workspace-write"].join(" ")
    const remote = await clanka(["exec", "--executor", executor, "-e", PROBE], { env: apparmor })
    expect(remote).toEqual({ code: 0, stdout: "write refused\nNoNewPrivs: 1 Seccomp: 2 \n", stderr: "" })
    expect(existsSync(join(root, "escaped"))).toBe(false)
  })

  test("clanka executor --sandbox announces Landlock in its capabilities (AgentStart of a run through --executor)", async () => {
    const server = await startFakeModel("anthropic", [{ blocks: [{ type: "execute", script: 'await taskComplete("done")' }] }])
    try {
      const executor = [BUN, MAIN, "executor", "-C", workspace, "--sandbox", "read-only"].join(" ")
      const result = await clanka(["run", "--json", "--executor", executor, "-m", "anthropic/claude-sonnet-4-5", "probe"], { env: { ...server.env, ...apparmor } })
      expect(result.code).toBe(0)
      expect(JSON.parse(result.stdout.split("\n")[0]!)).toMatchObject({ _tag: "AgentStart", sandbox: { mode: "read-only", network: false, backend: "landlock" } })
    } finally {
      await server.close()
    }
  })

  test("--sandbox-backend bwrap is exit 2 with bubblewrap's reason", async () => {
    for (const [args, env] of [
      [["--sandbox-backend", "bwrap"], apparmor],
      [[], { ...apparmor, CLANKA_SANDBOX_BACKEND: "bwrap" }],
    ] as const) {
      expect(await clanka(["exec", "-C", workspace, ...args, "-e", "1"], { env })).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "clanka: --sandbox-backend bwrap cannot start: bubblewrap (bwrap) cannot run here (setting up uid map: Permission denied); pass --sandbox-backend auto to take what runs here, or --sandbox off\n",
      })
    }
  })
})

describe.skipIf(!BWRAP.available || !LANDLOCK.available)("choosing the backend", () => {
  test("bubblewrap first; --sandbox-backend landlock (or CLANKA_SANDBOX_BACKEND) forces Landlock", async () => {
    // bubblewrap gives the script a pid namespace of its own; Landlock leaves it in this one.
    const pidns = 'console.log(await bash({ command: "readlink /proc/self/ns/pid" }))'
    const here = `${readlinkSync("/proc/self/ns/pid")}\n\n`
    expect((await clanka(["exec", "-C", workspace, "-e", pidns])).stdout).not.toBe(here)
    expect((await clanka(["exec", "-C", workspace, "--sandbox-backend", "landlock", "-e", pidns])).stdout).toBe(here)
    expect((await clanka(["exec", "-C", workspace, "-e", pidns], { env: { CLANKA_SANDBOX_BACKEND: "landlock" } })).stdout).toBe(here)
    // The flag wins over the environment.
    expect((await clanka(["exec", "-C", workspace, "--sandbox-backend", "bwrap", "-e", pidns], { env: { CLANKA_SANDBOX_BACKEND: "landlock" } })).stdout).not.toBe(here)
  })

  test("a host socket removed while bubblewrap starts does not make Landlock take over", async () => {
    // A socket that is listed to be covered, then removed just before bwrap runs (by a bwrap
    // wrapper here; by another program at the wrong moment in real life).
    const socket = join(root, "fleeting.sock")
    const listener = createServer()
    await new Promise<void>((done) => listener.listen(socket, done))
    const wrapper = join(root, "bwrap-after-rm")
    const bwrap = Bun.which("bwrap")!
    // Only the start of the executor itself, not bubblewrap's probes.
    writeFileSync(wrapper, `#!/bin/sh\ncase " $* " in *" executor "*) rm -f '${socket}' ;; esac\nexec '${bwrap}' "$@"\n`)
    chmodSync(wrapper, 0o755)
    try {
      const pidns = 'console.log(await bash({ command: "readlink /proc/self/ns/pid" }))'
      const env = { CLANKA_BWRAP: wrapper, CLANKA_SANDBOX_BACKEND: undefined }
      // The agent's own start, and a `clanka executor --sandbox` started by hand (its relay).
      const executor = [BUN, MAIN, "executor", "-C", workspace, "--sandbox", "workspace-write"].join(" ")
      for (const args of [["-C", workspace], ["--executor", executor]]) {
        await new Promise<void>((done) => (existsSync(socket) ? done() : listener.close(() => listener.listen(socket, done))))
        const result = await clanka(["exec", ...args, "-e", pidns], { env })
        expect(result.stderr).toBe("")
        // bubblewrap's pid namespace, not this one (Landlock's).
        expect(result.stdout).toMatch(/^pid:\[\d+\]\n\n$/)
        expect(result.stdout).not.toBe(`${readlinkSync("/proc/self/ns/pid")}\n\n`)
      }
    } finally {
      listener.close()
      rmSync(socket, { force: true })
    }
  })

  test("a backend that is not one is exit 2 with one line", async () => {
    expect(await clanka(["exec", "-C", workspace, "--sandbox-backend", "firejail", "-e", "1"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'clanka: --sandbox-backend takes auto, bwrap, landlock, got "firejail"\n',
    })
    expect((await clanka(["exec", "-C", workspace, "-e", "1"], { env: { CLANKA_SANDBOX_BACKEND: "nsjail" } })).stderr).toBe(
      'clanka: CLANKA_SANDBOX_BACKEND takes auto, bwrap, landlock, got "nsjail"\n',
    )
  })
})

describe("no backend can start: never silently off", () => {
  const reasons =
    "bubblewrap (bwrap) cannot run here (setting up uid map: Permission denied) and Landlock cannot run here (the kernel offers none: it needs Linux 5.13 or later with landlock among its LSMs)"

  test("the default mode refuses, exit 2 with one line naming --sandbox off; --sandbox off still runs", async () => {
    expect(await clankaWithoutLandlock(["exec", "-C", workspace, "-e", 'console.log("ran")'], apparmor)).toEqual({
      code: 2,
      stdout: "",
      stderr: `clanka: scripts run in the OS sandbox by default, but ${reasons}; install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap), or pass --sandbox off to run scripts without it\n`,
    })
    expect(await clankaWithoutLandlock(["exec", "-C", workspace, "--sandbox", "read-only", "-e", "1"], apparmor)).toEqual({
      code: 2,
      stdout: "",
      stderr: `clanka: --sandbox read-only needs the OS sandbox, but ${reasons}; install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap), or pass --sandbox off to run scripts without it\n`,
    })
    expect(await clankaWithoutLandlock(["exec", "-C", workspace, "--sandbox-backend", "landlock", "-e", "1"], apparmor)).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "clanka: --sandbox-backend landlock cannot start: Landlock cannot run here (the kernel offers none: it needs Linux 5.13 or later with landlock among its LSMs); pass --sandbox-backend auto to take what runs here, or --sandbox off\n",
    })
    expect(await clankaWithoutLandlock(["exec", "-C", workspace, "--sandbox", "off", "-e", 'console.log("ran")'], apparmor)).toEqual({ code: 0, stdout: "ran\n", stderr: "" })
  })

  test("without bubblewrap installed either: the same refusal, which says so", async () => {
    const result = await clankaWithoutLandlock(["exec", "-C", workspace, "-e", "1"], { CLANKA_BWRAP: "/nonexistent/bwrap" })
    expect(result.code).toBe(2)
    expect(result.stderr).toStartWith("clanka: scripts run in the OS sandbox by default, but bubblewrap (/nonexistent/bwrap) is not installed and Landlock cannot run here")
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1)
  })

  test("a --sandbox value that is not a mode is exit 2 with one line naming the modes the help lists", async () => {
    expect((await clanka(["exec", "--sandbox", "closed", "-e", "1"])).stderr).toBe('clanka: --sandbox takes workspace-write, read-only or off, got "closed"\n')
  })
})
