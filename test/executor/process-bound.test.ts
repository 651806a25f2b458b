// The RLIMIT_NPROC shell inside the sandbox: started for every user the limit binds, and not for
// root of the initial user namespace, which the kernel exempts (the pids cgroup binds root there).
// Root of a user namespace of its own (a rootless container) is bound by the limit: it keeps it.
import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync, rmdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { heldInPidsCgroup } from "../../src/executor/process-bound.ts"
import { BUN, MAIN, ROOT } from "../support/cli.ts"
import { BWRAP, LANDLOCK } from "../support/sandbox-backends.ts"
import { temporaryDirectory } from "../support/temp.ts"

const probe = `import { underProcessLimit } from ${JSON.stringify(join(ROOT, "src/executor/process-bound.ts"))}
console.log(JSON.stringify(underProcessLimit(["clanka", "executor"])))`
// The executor's own limit leaves it 256 processes and threads beyond its scripts' 1,024 (script-bound.ts).
const wrapped = ["/bin/sh", "-c", 'ulimit -u 1280 2>/dev/null || ulimit -p 1280 2>/dev/null; CLANKA_SCRIPTS_NPROC=1024 exec "$@"', "sh", "clanka", "executor"]

function argvAs(prefix: string[]): unknown {
  const run = Bun.spawnSync([...prefix, BUN, "-e", probe], { stderr: "pipe" })
  if (run.exitCode !== 0) throw new Error(run.stderr.toString())
  return JSON.parse(run.stdout.toString())
}

const root = process.getuid?.() === 0
const unshare = root && Bun.spawnSync(["unshare", "--user", "--map-root-user", "true"]).exitCode === 0

test.skipIf(!root)("root of the initial user namespace: the command as it is", () => {
  expect(argvAs([])).toEqual(["clanka", "executor"])
})

test.skipIf(!unshare)("root of a user namespace of its own: the limit's shell first", () => {
  expect(argvAs(["unshare", "--user", "--map-root-user"])).toEqual(wrapped)
})

test.skipIf(!root || !Bun.which("setpriv"))("another user: the limit's shell first", () => {
  expect(argvAs(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--"])).toEqual(wrapped)
})

// The Landlock backend has no user namespace of the sandbox's own: it sets the limit itself.
const plans = temporaryDirectory("clanka-nproc-")
const landlockLimit = (prefix: string[]): number => {
  const plan = join(plans, `plan-${prefix.length}.json`)
  writeFileSync(plan, JSON.stringify({ rules: [["/", "read"], ["/dev/null", "device"]], network: false, tmp: "/tmp", cwd: "/", env: {} }))
  const run = Bun.spawnSync([...prefix, BUN, MAIN, "__landlock-exec", plan, "--", "/bin/sh", "-c", "ulimit -u 2>/dev/null || ulimit -p"], { stderr: "pipe" })
  if (run.exitCode !== 0) throw new Error(run.stderr.toString())
  return Number(run.stdout.toString().trim())
}
const outside = Number(Bun.spawnSync(["/bin/sh", "-c", "ulimit -u 2>/dev/null || ulimit -p"]).stdout.toString().trim())

test.skipIf(!unshare || !LANDLOCK.available)("Landlock: root of a user namespace of its own gets the limit; root of the initial one keeps its own", () => {
  const bound = landlockLimit(["unshare", "--user", "--map-root-user"])
  expect(bound).toBeGreaterThan(1024)
  expect(bound).toBeLessThan(outside)
  expect(landlockLimit([])).toBe(outside)
})

// bwrap held until its sandbox is in the pids cgroup: the move happens beside bwrap's start.
describe.skipIf(!root || !BWRAP.available)("the pids cgroup entered while bwrap holds its sandbox", () => {
  const dir = temporaryDirectory("clanka-held-")
  const sandbox = (command: string) => ["bwrap", "--ro-bind", "/", "/", "--bind", dir, dir, "--unshare-user", "--unshare-pid", "--die-with-parent", "--", "/bin/sh", "-c", command]
  const spawnHeld = (argv: string[]) => Bun.spawn(argv, { stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"] })

  test("the sandbox runs inside the cgroup; bwrap, outside it, reads its whole report and exits 0", async () => {
    const bound = heldInPidsCgroup(sandbox("cat /proc/self/cgroup; sleep 0.2; echo ran"))
    expect(bound.cgroup).toMatch(new RegExp(`/clanka-${process.pid}-\\d+$`))
    expect(bound.argv.slice(0, 5)).toEqual(["bwrap", "--info-fd", "3", "--block-fd", "4"])
    const child = spawnHeld(bound.argv)
    await bound.admit!(child)
    // While it runs, the cgroup holds the sandbox's processes and not bwrap's own.
    await Bun.sleep(100)
    const inside = readFileSync(join(bound.cgroup!, "exec", "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number)
    expect(inside.length).toBeGreaterThan(0)
    expect(inside).not.toContain(child.pid)
    const out = await new Response(child.stdout).text()
    expect(await child.exited).toBe(0)
    const pids = out.split("\n").find((line) => /^\d+:pids:|^0::/.test(line) && line.includes("clanka-"))
    expect(pids?.endsWith(`${bound.cgroup!.slice(bound.cgroup!.indexOf("/clanka-"))}/exec`)).toBe(true)
    expect(out.endsWith("ran\n")).toBe(true)
    await bound.release()
    expect(existsSync(bound.cgroup!)).toBe(false)
  })

  test("the report is read to its end, however bwrap's writes of it are spaced (its last write must not meet a closed pipe)", async () => {
    // bwrap's part played by a script, for the timing: the report's first lines (as bwrap writes them), a pause, the rest.
    const slow = join(dir, "slow-bwrap")
    writeFileSync(
      slow,
      `#!/bin/bash
sleep 5 >/dev/null 3>&- 4>&- & held=$!
printf '{\\n    "child-pid": %d' $held >&3
printf ',\\n    "ipc-namespace": 1' >&3
sleep 0.2
printf ',\\n    "mnt-namespace": 1\\n}\\n' >&3
exec 3>&-
read -r -n 1 -u 4 && echo released
kill $held
`,
      { mode: 0o755 },
    )
    const bound = heldInPidsCgroup([slow])
    const child = spawnHeld(bound.argv)
    await bound.admit!(child)
    expect(await new Response(child.stdout).text()).toBe("released\n")
    expect(await child.exited).toBe(0)
    await bound.release()
  })

  test("a move that fails: the sandbox never runs its command, and the error names the cgroup", async () => {
    const marker = join(dir, "ran")
    const bound = heldInPidsCgroup(sandbox(`touch ${marker}`))
    // The executor's part gone before the move: writing the sandbox's pid into it fails. (Not the
    // scripts' part: bwrap binds its cgroup.procs, and would fail on its own, first or not.)
    rmdirSync(join(bound.cgroup!, "exec"))
    const child = spawnHeld(bound.argv)
    const error = await bound.admit!(child).then(() => undefined, (error: Error) => error)
    expect(error?.message).toMatch(new RegExp(`^cannot enter the pids cgroup ${bound.cgroup}: cannot create ${bound.cgroup}/exec/cgroup.procs: Directory nonexistent$`))
    expect(child.exitCode ?? child.signalCode).not.toBe(0)
    await Bun.sleep(200)
    expect(existsSync(marker)).toBe(false)
    await bound.release()
  })

  test("bwrap that makes no sandbox: nothing to admit, its own error stands", async () => {
    const bound = heldInPidsCgroup(["bwrap", "--no-such-option", "--", "true"])
    const child = spawnHeld(bound.argv)
    await bound.admit!(child)
    expect(await child.exited).toBe(1)
    expect(await new Response(child.stderr).text()).toContain("Unknown option --no-such-option")
    await bound.release()
  })
})
