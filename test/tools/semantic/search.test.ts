// search(query) as a script calls it in a LocalExecutor: what it finds, how it shows it, where the
// index lives, and how it follows writes made through the tools and behind its back.
import { afterAll, beforeAll, expect, test } from "bun:test"
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { LocalExecutor } from "../../../src/executor/local.ts"
import { closeIndexes, indexFor } from "../../../src/tools/semantic/index.ts"
import { searchIndexDir } from "../../../src/tools/semantic/location.ts"
import { temporaryDirectory } from "../../support/temp.ts"

const root = temporaryDirectory("clanka-semantic-")
const workspace = join(root, "app")
const cache = join(root, "cache")
let savedCache: string | undefined

function write(rel: string, text: string): void {
  mkdirSync(join(workspace, rel, ".."), { recursive: true })
  writeFileSync(join(workspace, rel), text)
}

beforeAll(() => {
  savedCache = process.env.XDG_CACHE_HOME
  process.env.XDG_CACHE_HOME = cache
  write(".gitignore", "dist/\n")
  write(
    "src/http/request.ts",
    [
      "/** Reads the method, path and headers of a raw HTTP request. */",
      "export function parseHttpRequest(raw: string) {",
      '  const [head] = raw.split("\\r\\n\\r\\n")',
      '  const [line, ...headers] = head.split("\\r\\n")',
      '  const [method, path] = line.split(" ")',
      "  return { method, path, headers }",
      "}",
      "",
      "export function formatStatusLine(code: number, reason: string) {",
      "  const version = 'HTTP/1.1'",
      "  const padded = String(code).padStart(3, '0')",
      "  const text = reason.trim()",
      "  return `${version} ${padded} ${text}`",
      "}",
      "",
    ].join("\n"),
  )
  write(
    "src/billing/invoice.py",
    ["import decimal", "", "", "def total_with_tax(lines, tax_rate):", "    net = sum(line.amount for line in lines)", "    tax = net * tax_rate", "    rounded = round(tax, 2)", "    return net + rounded", ""].join("\n"),
  )
  write("docs/guide.md", ["# Guide", "", "## Deploying to production", "", "Build the image, push it, then roll the pods one by one.", ""].join("\n"))
  write("dist/bundle.js", "export function parseHttpRequest() {}\n")
  writeFileSync(join(workspace, "src/logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3, 4]))
})

afterAll(() => {
  closeIndexes()
  delete process.env.CLANKA_SEARCH_RESCAN_MS
  if (savedCache === undefined) delete process.env.XDG_CACHE_HOME
  else process.env.XDG_CACHE_HOME = savedCache
})

async function run(executor: LocalExecutor, script: string): Promise<string> {
  let out = ""
  for await (const text of executor.execute({ script, onTaskComplete() {}, onSubagent: async () => "" })) out += text
  return out
}

test("a question in words finds the function that answers it, shown as path:start-end and its lines", async () => {
  const executor = new LocalExecutor({ directory: workspace })
  try {
    expect((await executor.capabilities()).supportsSearch).toBe(true)
    expect((await executor.capabilities()).toolsDts).toContain("declare function search(query: string, options?: {")
    const without = new LocalExecutor({ directory: workspace, search: false })
    expect(await without.capabilities()).toMatchObject({ supportsSearch: false, toolsDts: expect.not.stringContaining("function search(") })
    await without.close()
    const out = await run(executor, 'console.log(await search("parse the http request headers", { limit: 1 }))')
    expect(out).toBe(
      [
        "src/http/request.ts:1-7",
        "/** Reads the method, path and headers of a raw HTTP request. */",
        "export function parseHttpRequest(raw: string) {",
        '  const [head] = raw.split("\\r\\n\\r\\n")',
        '  const [line, ...headers] = head.split("\\r\\n")',
        '  const [method, path] = line.split(" ")',
        "  return { method, path, headers }",
        "}",
        "",
      ].join("\n"),
    )
    // snake_case, Python, and words of the path.
    expect(await run(executor, 'console.log(await search("total with tax", { limit: 1 }))')).toStartWith("src/billing/invoice.py:1-8\n")
    expect(await run(executor, 'console.log(await search("billing", { limit: 1 }))')).toStartWith("src/billing/invoice.py:")
    expect(await run(executor, 'console.log(await search("how do we deploy to production", { limit: 1 }))')).toStartWith("docs/guide.md:1-5\n# Guide\n\n## Deploying to production\n")
  } finally {
    await executor.close()
  }
})

test("the index lives under $XDG_CACHE_HOME/clanka/search, one directory per workspace; ignored and binary files are not in it", async () => {
  const executor = new LocalExecutor({ directory: workspace })
  try {
    await executor.executeUnsafe("search", ["anything"])
    expect(searchIndexDir(workspace)).toStartWith(join(cache, "clanka", "search", "app-"))
    expect(existsSync(join(searchIndexDir(workspace), "index.sqlite"))).toBe(true)
    const paths = indexFor(workspace).store.db.query("SELECT DISTINCT path FROM chunks ORDER BY path").all()
    expect(paths).toEqual([{ path: ".gitignore" }, { path: "docs/guide.md" }, { path: "src/billing/invoice.py" }, { path: "src/http/request.ts" }])
  } finally {
    await executor.close()
  }
})

test("limit, glob and bad input", async () => {
  const executor = new LocalExecutor({ directory: workspace })
  try {
    const two = (await executor.executeUnsafe("search", ["http status line request", { limit: 2 }])) as string
    expect(two.match(/^src\/\S+:\d+-\d+$/gm)).toEqual(["src/http/request.ts:9-14", "src/http/request.ts:1-7"])
    expect(await executor.executeUnsafe("search", ["http request", { glob: "*.py" }])).toStartWith("[no chunks match \"http request\" in *.py;")
    expect(await executor.executeUnsafe("search", ["total tax http", { glob: ["src/**", "!*.ts"] }])).toStartWith("src/billing/invoice.py:")
    expect(executor.executeUnsafe("search", [" "])).rejects.toThrow("search: the query is empty; describe what you are looking for")
    expect(executor.executeUnsafe("search", ["x", { limit: 0 }])).rejects.toThrow("limit")
    expect(await run(executor, 'try { await search() } catch (e) { console.log(e.message) }')).toContain("search")
  } finally {
    await executor.close()
  }
})

test("writes through the tools update the index at once; changes behind its back are found at the next search", async () => {
  const executor = new LocalExecutor({ directory: workspace })
  try {
    await executor.executeUnsafe("search", ["warm"])
    const store = indexFor(workspace).store
    const chunksOf = (path: string) => store.db.query("SELECT start, end, symbols FROM chunks WHERE path = ?").all(path)
    await executor.executeUnsafe("writeFile", { path: "src/queue.ts", content: "export function drainMessageQueue() {\n  return 1\n}\n" })
    // No search in between: the write itself put the file in the index.
    expect(chunksOf("src/queue.ts")).toEqual([{ start: 1, end: 3, symbols: "drainMessageQueue" }])
    await executor.executeUnsafe("applyPatch", "*** Begin Patch\n*** Update File: src/queue.ts\n@@\n-export function drainMessageQueue() {\n+export function flushOutbox() {\n*** End Patch")
    expect(chunksOf("src/queue.ts")).toEqual([{ start: 1, end: 3, symbols: "flushOutbox" }])
    await executor.executeUnsafe("renameFile", { from: "src/queue.ts", to: "src/outbox.ts" })
    expect(chunksOf("src/queue.ts")).toEqual([])
    expect(chunksOf("src/outbox.ts")).toEqual([{ start: 1, end: 3, symbols: "flushOutbox" }])
    await executor.executeUnsafe("removeFile", "src/outbox.ts")
    expect(chunksOf("src/outbox.ts")).toEqual([])
    // A patch that moves a file: the new place at once, the old one gone by the next search.
    await executor.executeUnsafe("writeFile", { path: "src/a.ts", content: "export function alphaRoutine() {}\n" })
    await executor.executeUnsafe("applyPatch", "*** Begin Patch\n*** Update File: src/a.ts\n*** Move to: src/b.ts\n@@\n-export function alphaRoutine() {}\n+export function betaRoutine() {}\n*** End Patch")
    expect(chunksOf("src/b.ts")).toEqual([{ start: 1, end: 1, symbols: "betaRoutine" }])
    await executor.executeUnsafe("search", ["routine"])
    expect(chunksOf("src/a.ts")).toEqual([])
    await executor.executeUnsafe("removeFile", "src/b.ts")

    // Behind its back, through bash: the next search scans, even right after another.
    await executor.executeUnsafe("bash", { command: "printf 'export function scheduleNightlyBackup() {}\\n' > src/cron.ts" })
    expect(await executor.executeUnsafe("search", ["nightly backup", { limit: 1 }])).toStartWith("src/cron.ts:1-1\n")
    // Behind its back, as an editor would (no tool call): found once the last scan is older than
    // CLANKA_SEARCH_RESCAN_MS. An edit that keeps the size, a deletion.
    process.env.CLANKA_SEARCH_RESCAN_MS = "0"
    write("src/http/request.ts", "export function parseSmtpEnvelope(raw: string) {}\n")
    utimesSync(join(workspace, "src/http/request.ts"), new Date(), new Date(Date.now() + 5000))
    rmSync(join(workspace, "docs/guide.md"))
    expect(await executor.executeUnsafe("search", ["smtp envelope", { limit: 1 }])).toStartWith("src/http/request.ts:1-1\nexport function parseSmtpEnvelope")
    expect(await executor.executeUnsafe("search", ["deploying production", { limit: 3 }])).not.toContain("docs/guide.md")
  } finally {
    await executor.close()
  }
})
