// The sandbox's attack suites again, against the compiled binary users run: its Landlock step goes
// on as the executor in its own process (landlock-in-place.ts), a path clanka from source never
// takes (Bun from source runs a second thread before the first line, so that step executes the
// executor). Each file of this directory that runs clanka runs here with CLANKA_TEST_BIN set
// (test/support/cli.ts), in a `bun test` of its own.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { basename, join } from "node:path"
import { buildClanka, ROOT } from "../support/cli.ts"

// Beside the source (node_modules/.cache, which git ignores): a clanka program under /tmp brings
// its top directory into the sandbox, and the suites run this checkout's Bun in there as a tool
// (a socket client); from the same place the binary brings the same.
const cache = join(ROOT, "node_modules", ".cache")
mkdirSync(cache, { recursive: true })
const dir = mkdtempSync(join(cache, "clanka-compiled-"))
const bin = join(dir, "clanka")
afterAll(() => rmSync(dir, { recursive: true, force: true }))

beforeAll(async () => {
  await buildClanka(bin)
}, 120_000)

test("every test of the sandbox that runs clanka passes against the compiled binary", async () => {
  const here = import.meta.dir
  const files = readdirSync(here)
    .filter((name) => name.endsWith(".test.ts") && name !== basename(import.meta.path))
    .filter((name) => readFileSync(join(here, name), "utf8").includes('from "../support/cli.ts"'))
    .map((name) => join("test/sandbox", name))
  expect(files).toContain("test/sandbox/landlock.test.ts")
  const run = Bun.spawn([process.execPath, "test", "--timeout", "60000", ...files], {
    cwd: ROOT,
    env: { ...process.env, CLANKA_TEST_BIN: bin },
    stdout: "pipe",
    stderr: "pipe",
  })
  const [stdout, stderr, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited])
  const output = stdout + stderr
  // What failed, by name, rather than a bare exit code.
  const failed = [...new Set(output.split("\n").filter((line) => line.startsWith("(fail)")))]
  expect({ code, failed }).toEqual({ code: 0, failed: [] })
  expect(output).toMatch(/^ 0 fail$/m)
}, 600_000)
