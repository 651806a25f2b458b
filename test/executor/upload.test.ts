// A host without clanka gets this clanka copied over ssh into its cache, checked and moved into
// place; later runs find it there. Runs the compiled binary (built once for this file): only a
// compiled clanka has a binary to copy. The loopback sshd's far side has no clanka on its PATH
// and its XDG_CACHE_HOME in the sshd's temporary directory.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { buildClanka } from "../support/cli.ts"
import { sshdAvailable, startSshProject, type SshProject } from "../support/sshd.ts"
import { VERSION } from "../../src/version.ts"

const available = sshdAvailable()
let host: SshProject
let dir: string
let bin: string
let sha: string
let sshLog: string
let env: Record<string, string>

beforeAll(async () => {
  if (!available) return
  dir = mkdtempSync(join(tmpdir(), "clanka-upload-"))
  bin = join(dir, "clanka")
  await buildClanka(bin)
  sha = createHash("sha256").update(readFileSync(bin)).digest("hex")
  host = await startSshProject("clanka-upload-local-", { "README.md": "remote readme\n" })
  // Every ssh call clanka makes is logged, then goes through the sshd helper's ssh.
  sshLog = join(dir, "ssh.log")
  const counting = join(dir, "path")
  Bun.spawnSync(["mkdir", counting])
  writeFileSync(join(counting, "ssh"), `#!/bin/sh\necho call >> '${sshLog}'\nexec '${join(host.dir, "bin/ssh")}' "$@"\n`)
  chmodSync(join(counting, "ssh"), 0o755)
  env = {
    PATH: `${counting}:/usr/bin:/bin`,
    HOME: join(dir, "home"),
    XDG_CACHE_HOME: join(dir, "local-cache"),
    XDG_STATE_HOME: join(dir, "local-state"),
    XDG_CONFIG_HOME: join(dir, "local-config"),
  }
}, 120_000)

afterAll(async () => {
  if (!available) return
  await host.stop()
  rmSync(dir, { recursive: true, force: true })
})

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string; sshCalls: number }> {
  rmSync(sshLog, { force: true })
  const child = Bun.spawn([bin, ...args], { cwd: host.local, env, stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  const sshCalls = existsSync(sshLog) ? readFileSync(sshLog, "utf8").split("\n").filter(Boolean).length : 0
  return { code, stdout, stderr, sshCalls }
}

const readme = ["exec", "--ssh", "", "-e", 'console.log(await readFile({ path: "README.md" }))']
const exec = () => readme.map((word) => word || host.target)
const cached = () => join(host.remoteCache, "clanka/bin", `${VERSION}-${sha.slice(0, 16)}`, "clanka")
const stamp = () => `${cached()}.stamp`
// The far side's search index lives in the same cache; only the copies of clanka count here.
const remoteCacheFiles = () =>
  existsSync(host.remoteCache)
    ? readdirSync(host.remoteCache, { recursive: true }).map(String).filter((path) => !path.startsWith("clanka/search")).sort()
    : []
const fake = (name: string, script: string) => {
  writeFileSync(join(host.remotePath, name), `#!/bin/sh\n${script}\n`)
  chmodSync(join(host.remotePath, name), 0o755)
}

test.skipIf(!available)("--no-upload: a host without clanka is exit 3 with the line that says to install it", async () => {
  expect(await run(["exec", "--no-upload", "--ssh", host.target, "-e", "1"])).toEqual({
    code: 3,
    stdout: "",
    stderr: "clanka: `clanka` was not found on clanka-test-host; install clanka there or pass --remote-bin PATH (or set CLANKA_REMOTE_BIN)\n",
    sshCalls: 1,
  })
  expect(remoteCacheFiles()).toEqual([])
})

test.skipIf(!available)("a host of another platform: exit 3 naming the build it needs, unless clanka-TARGET lies beside this binary", async () => {
  fake("uname", 'echo "FreeBSD amd64"')
  expect(await run(exec())).toMatchObject({
    code: 3,
    stderr: 'clanka: `clanka` was not found on clanka-test-host, which runs "FreeBSD amd64": there is no clanka build for it; install clanka there or pass --remote-bin PATH\n',
  })
  fake("uname", 'echo "Linux aarch64"')
  expect(await run(exec())).toMatchObject({
    code: 3,
    stderr: `clanka: \`clanka\` was not found on clanka-test-host, which is linux-arm64 while this clanka is linux-x64: put clanka-linux-arm64 (bun scripts/build.ts --all) beside ${bin}, or install clanka on clanka-test-host\n`,
  })
  expect(remoteCacheFiles()).toEqual([])
  // The "arm64 build" here is a small script that runs this binary (the host is really x64).
  const arm64 = join(dir, "clanka-linux-arm64")
  writeFileSync(arm64, `#!/bin/sh\nexec '${bin}' "$@"\n`)
  const arm64Sha = createHash("sha256").update(readFileSync(arm64)).digest("hex")
  try {
    const result = await run(exec())
    expect(result.code).toBe(0)
    expect(result.stdout).toBe("remote readme\n\n")
    const installed = join(host.remoteCache, "clanka/bin", `${VERSION}-${arm64Sha.slice(0, 16)}`, "clanka")
    expect(result.stderr).toMatch(
      new RegExp(
        `^clanka: clanka is not on clanka-test-host: copying clanka ${VERSION} \\(linux-arm64, 0\\.0 MB, gzip\\) there\nclanka: copied to clanka-test-host:${installed} in [\\d.]+ s; later runs use it\n$`,
      ),
    )
    expect(readFileSync(installed, "utf8")).toBe(readFileSync(arm64, "utf8"))
    // The next run: the host's cache has the arm64 build (the own build's name is tried first).
    expect(await run(exec())).toEqual({ code: 0, stdout: "remote readme\n\n", stderr: "", sshCalls: 3 })
  } finally {
    rmSync(join(host.remotePath, "uname"))
    rmSync(arm64)
    rmSync(host.remoteCache, { recursive: true, force: true })
  }
}, 60_000)

test.skipIf(!available)("a copy damaged on the way is refused by its SHA-256 and never put in place", async () => {
  fake("gzip", `/usr/bin/gzip "$@" | head -c 1000000`)
  try {
    const result = await run(exec())
    expect(result.code).toBe(3)
    const damaged = createHash("sha256").update(readFileSync(bin).subarray(0, 1_000_000)).digest("hex")
    expect(result.stderr.split("\n").at(-2)).toBe(
      `clanka: copying clanka to clanka-test-host failed: the copy's SHA-256 is ${damaged}, not ${sha} (it was damaged on the way); check the host and run again`,
    )
    // The directory of the build, but no file in it: neither the damaged copy nor its temporary.
    expect(remoteCacheFiles()).toEqual(["clanka", "clanka/bin", `clanka/bin/${VERSION}-${sha.slice(0, 16)}`])
  } finally {
    rmSync(join(host.remotePath, "gzip"))
    rmSync(host.remoteCache, { recursive: true, force: true })
  }
}, 60_000)

test.skipIf(!available)("the first run copies clanka into the host's cache with progress on stderr; the next one uploads nothing", async () => {
  const first = await run(exec())
  expect(first.code).toBe(0)
  expect(first.stdout).toBe("remote readme\n\n")
  const [intro, done, rest] = first.stderr.split("\n")
  expect(intro).toBe(`clanka: clanka is not on clanka-test-host: copying clanka ${VERSION} (linux-x64, ${(statSync(bin).size / 1e6).toFixed(1)} MB, gzip) there`)
  expect(done).toMatch(new RegExp(`^clanka: copied to clanka-test-host:${cached()} in \\d+(\\.\\d)? s; later runs use it$`))
  expect(rest).toBe("")
  // Try the host's clanka, copy (one call: platform, cache, bytes), start the copy.
  expect(first.sshCalls).toBe(3)
  expect(createHash("sha256").update(readFileSync(cached())).digest("hex")).toBe(sha)
  expect(statSync(cached()).mode & 0o777).toBe(0o755)
  const copiedAt = statSync(cached()).mtimeMs

  const second = await run(exec())
  expect(second).toEqual({ code: 0, stdout: "remote readme\n\n", stderr: "", sshCalls: 1 })
  expect(statSync(cached()).mtimeMs).toBe(copiedAt)
  const build = `clanka/bin/${VERSION}-${sha.slice(0, 16)}`
  // (clanka/empty: the empty file the sandbox shows in place of a hidden credential file.)
  expect(remoteCacheFiles()).toEqual(["clanka", "clanka/bin", build, `${build}/clanka`, `${build}/clanka.stamp`, "clanka/empty"])
  // The stamp, written after the checked copy was in place: its size and SHA-256.
  expect(readFileSync(stamp(), "utf8")).toBe(`${statSync(bin).size} ${sha}\n`)
}, 60_000)

/** A script put where the cached clanka goes; it leaves a mark if it is ever run. */
function plant(): string {
  const mark = join(dir, "planted-ran")
  rmSync(mark, { force: true })
  mkdirSync(dirname(cached()), { recursive: true })
  writeFileSync(cached(), `#!/bin/sh\necho ran > '${mark}'\necho '{}'\n`)
  chmodSync(cached(), 0o755)
  return mark
}

const STALE = `clanka: the copy of clanka in clanka-test-host's cache does not match the stamp written when it was copied; copying clanka ${VERSION} (linux-x64, `

test.skipIf(!available)("a file planted under the cache's name without a stamp is never run: a fresh upload replaces it", async () => {
  rmSync(host.remoteCache, { recursive: true, force: true })
  const mark = plant()
  try {
    const result = await run(exec())
    expect(existsSync(mark)).toBe(false)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe("remote readme\n\n")
    expect(result.stderr).toStartWith(STALE)
    expect(createHash("sha256").update(readFileSync(cached())).digest("hex")).toBe(sha)
    expect(readFileSync(stamp(), "utf8")).toBe(`${statSync(bin).size} ${sha}\n`)
  } finally {
    rmSync(host.remoteCache, { recursive: true, force: true })
  }
}, 60_000)

test.skipIf(!available)("a cached copy replaced later by a file of another size is never run, even under its old stamp and time", async () => {
  rmSync(host.remoteCache, { recursive: true, force: true })
  try {
    expect((await run(exec())).code).toBe(0)
    const { atime, mtime } = statSync(cached())
    const mark = plant()
    // Dated back as the real copy was: only the size gives it away.
    utimesSync(cached(), atime, mtime)
    const result = await run(exec())
    expect(existsSync(mark)).toBe(false)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe("remote readme\n\n")
    expect(result.stderr).toStartWith(STALE)
    expect(createHash("sha256").update(readFileSync(cached())).digest("hex")).toBe(sha)
  } finally {
    rmSync(host.remoteCache, { recursive: true, force: true })
  }
}, 60_000)
