// The RLIMIT_NPROC shell inside the sandbox: started for every user the limit binds, and not for
// root of the initial user namespace, which the kernel exempts (the pids cgroup binds root there).
// Root of a user namespace of its own (a rootless container) is bound by the limit: it keeps it.
import { expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, MAIN, ROOT } from "../support/cli.ts"
import { LANDLOCK } from "../support/sandbox-backends.ts"
import { temporaryDirectory } from "../support/temp.ts"

const probe = `import { underProcessLimit } from ${JSON.stringify(join(ROOT, "src/executor/process-bound.ts"))}
console.log(JSON.stringify(underProcessLimit(["clanka", "executor"])))`
const wrapped = ["/bin/sh", "-c", 'ulimit -u 1024 2>/dev/null || ulimit -p 1024 2>/dev/null; exec "$@"', "sh", "clanka", "executor"]

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
