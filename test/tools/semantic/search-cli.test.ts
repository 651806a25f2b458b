// search through the command line: on by default in the sandboxed child executor, off with
// --no-search, progress of a big first index on stderr, and the sandbox's one extra writable place.
import { expect, test } from "bun:test"
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { osSandboxWorks } from "../../../src/executor/os-sandbox.ts"
import { searchIndexDir } from "../../../src/tools/semantic/location.ts"
import { clanka } from "../../support/cli.ts"
import { temporaryDirectory } from "../../support/temp.ts"

const root = temporaryDirectory("clanka-search-cli-")
const cache = join(root, "cache")
const env = { XDG_CACHE_HOME: cache }

function workspace(name: string, files: Record<string, string>): string {
  const dir = join(root, name)
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, ".."), { recursive: true })
    writeFileSync(join(dir, rel), text)
  }
  return dir
}

const app = workspace("app", { "src/retry.ts": "export function retryWithBackoff(attempts: number) {\n  return attempts * 2\n}\n" })

test("clanka exec: search works in the sandboxed executor and the index persists in the cache", async () => {
  const result = await clanka(["exec", "-C", app, "-e", 'console.log(await search("retry with backoff"))'], { env })
  expect(result).toEqual({ code: 0, stdout: "src/retry.ts:1-3\nexport function retryWithBackoff(attempts: number) {\n  return attempts * 2\n}\n", stderr: "" })
  expect(existsSync(join(searchIndexDir(app, env), "index.sqlite"))).toBe(true)
  // The index holds the words of the workspace's files: the user's alone, whatever the umask.
  for (const dir of [join(cache, "clanka", "search"), searchIndexDir(app, env)]) expect(statSync(dir).mode & 0o777).toBe(0o700)
  const files = readdirSync(searchIndexDir(app, env))
  for (const file of files) expect({ file, mode: statSync(join(searchIndexDir(app, env), file)).mode & 0o777 }).toEqual({ file, mode: 0o600 })
})

test("clanka exec --json (one result per host) keeps the index in the cache too", async () => {
  const jsonApp = workspace("json-app", { "src/retry.ts": "export function retryWithBackoff(attempts: number) {\n  return attempts * 2\n}\n" })
  const result = await clanka(["exec", "--json", "-C", jsonApp, "-e", 'console.log((await search("retry with backoff")).split("\\n")[0])'], { env })
  expect(JSON.parse(result.stdout)).toMatchObject({ host: "local", exitCode: 0, output: "src/retry.ts:1-3\n" })
  expect(existsSync(join(searchIndexDir(jsonApp, env), "index.sqlite"))).toBe(true)
})

test("several clanka processes searching one workspace at once all get their answer", async () => {
  const files: Record<string, string> = {}
  for (let i = 0; i < 300; i++) files[`src/m${i}.ts`] = `export function handler${i}(value: number) {\n  return value + ${i}\n}\n`
  files["src/retry.ts"] = "export function retryWithBackoff(attempts: number) {\n  return attempts * 2\n}\n"
  const shared = workspace("shared", files)
  // Each one also changes a file first, so every search has something to write.
  const script = (n: number) => `await bash({ command: "echo '// ${n}' >> src/m${n}.ts" }); console.log((await search("retry with backoff")).split("\\n")[0])`
  const results = await Promise.all([1, 2, 3].map((n) => clanka(["exec", "-C", shared, "-e", script(n)], { env })))
  for (const result of results) expect(result).toEqual({ code: 0, stdout: "src/retry.ts:1-3\n", stderr: "" })
})

test("--no-search: no declaration, no global, no index", async () => {
  const bare = workspace("bare", { "a.ts": "export const a = 1\n" })
  const tools = await clanka(["tools", "-C", bare, "--no-search"], { env })
  expect(tools.code).toBe(0)
  expect(tools.stdout).not.toContain("declare function search(")
  expect((await clanka(["tools", "-C", bare], { env })).stdout).toContain("declare function search(query: string, options?:")
  const result = await clanka(["exec", "-C", bare, "--no-search", "-e", 'console.log(typeof search)'], { env })
  expect(result).toEqual({ code: 0, stdout: "undefined\n", stderr: "" })
  expect(existsSync(searchIndexDir(bare, env))).toBe(false)
  // A script that does not search leaves nothing in the cache either.
  expect((await clanka(["exec", "-C", bare, "-e", "console.log(1)"], { env })).stdout).toBe("1\n")
  expect(existsSync(searchIndexDir(bare, env))).toBe(false)
  const misplaced = await clanka(["exec", "--executor", "clanka executor", "--no-search", "-e", "1"], { env })
  expect(misplaced.code).toBe(2)
  expect(misplaced.stderr).toStartWith("clanka: --no-search does not apply to --executor: put it in the executor command")
})

test("a first index of a big tree reports progress on stderr and answers from what it has", async () => {
  const files: Record<string, string> = {}
  for (let i = 0; i < 1200; i++) files[`gen/module${i}.ts`] = `export function handler${i}(input: number) {\n  return input + ${i}\n}\n`
  const big = workspace("big", files)
  const result = await clanka(["exec", "-C", big, "-e", 'console.log((await search("handler 7")).split("\\n")[0])'], { env: { ...env, CLANKA_SEARCH_WAIT_MS: "0" } })
  expect(result.code).toBe(0)
  expect(result.stdout).toMatch(/^\[index still being built: (?:listing the files|\d+ of 1200 files read); results may be missing some; search again later\]\n$/)
  expect(result.stderr).toStartWith(`clanka search: indexing 1200 files of ${big}\n`)
})

test.skipIf(!osSandboxWorks())("attack: a script cannot write another workspace's index, only its own", async () => {
  const other = workspace("other", { "b.ts": "export const b = 2\n" })
  expect((await clanka(["exec", "-C", other, "-e", 'await search("b")'], { env })).code).toBe(0)
  const target = join(searchIndexDir(other, env), "index.sqlite")
  const own = searchIndexDir(app, env)
  const script = `console.log(await bash({ command: ${JSON.stringify(`echo x >> '${target}'; echo $?; touch '${own}/mine' && echo own-ok`)} }))`
  const before = readFileSync(target)
  const result = await clanka(["exec", "-C", app, "-e", script], { env })
  expect(result.code).toBe(0)
  // The append failed (exit status 1), the other index is as it was; the own one is writable.
  expect(result.stdout).toMatch(/\n1\nown-ok\n/)
  expect(readFileSync(target).equals(before)).toBe(true)
  expect(existsSync(join(own, "mine"))).toBe(true)
})

test("attack: links a script left in its workspace's index directory are not followed by a later search, even with --sandbox off", async () => {
  // A sandboxed script can write its own index directory (the test above): it leaves links where
  // the database and its WAL go, pointing at files of the user's.
  const linked = workspace("linked", { "src/retry.ts": "export function retryWithBackoff(attempts: number) {\n  return attempts * 2\n}\n" })
  const dir = searchIndexDir(linked, env)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const victims = [join(root, "victim-db.txt"), join(root, "victim-wal.txt")]
  for (const victim of victims) {
    writeFileSync(victim, "precious\n")
    chmodSync(victim, 0o644)
  }
  symlinkSync(victims[0]!, join(dir, "index.sqlite"))
  symlinkSync(victims[1]!, join(dir, "index.sqlite-wal"))
  const result = await clanka(["tool", "search", '"retry with backoff"', "-C", linked, "--sandbox", "off"], { env })
  for (const victim of victims) expect({ victim, mode: statSync(victim).mode & 0o777, text: readFileSync(victim, "utf8") }).toEqual({ victim, mode: 0o644, text: "precious\n" })
  expect(result.code).toBe(0)
  expect(JSON.parse(result.stdout)).toStartWith("src/retry.ts:1-3\n")
  // The index is a file of its own again, kept on disk.
  expect(lstatSync(join(dir, "index.sqlite")).isFile()).toBe(true)
})
