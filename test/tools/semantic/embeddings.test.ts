// Embedding search through the real `openai` package against a deterministic fake server
// (mechanics only: requests, storage with the model's name, fusion, failures).
import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { LocalExecutor } from "../../../src/executor/local.ts"
import { configureEmbeddings, parseEmbedModel } from "../../../src/tools/semantic/embed.ts"
import { closeIndexes, indexFor } from "../../../src/tools/semantic/index.ts"
import { clanka } from "../../support/cli.ts"
import { serveFakeEmbeddings } from "../../support/fake-embeddings.ts"
import { temporaryDirectory } from "../../support/temp.ts"

let failing = false
const server = serveFakeEmbeddings({ fail: () => failing })
const root = temporaryDirectory("clanka-embed-")
const cache = join(root, "cache")
let savedCache: string | undefined

function makeWorkspace(name: string): string {
  const dir = join(root, name)
  mkdirSync(join(dir, "src"), { recursive: true })
  writeFileSync(
    join(dir, "src/throttle.ts"),
    "export function throttle(fn: () => void, waitMs: number) {\n  let last = 0\n  return () => {\n    const now = Date.now()\n    if (now - last >= waitMs) {\n      last = now\n      fn()\n    }\n  }\n}\n",
  )
  writeFileSync(join(dir, "src/pager.ts"), "/** One page of items; limiting how many are shown. */\nexport function paginate(items: string[], size: number) {\n  return items.slice(0, size)\n}\n")
  writeFileSync(join(dir, "src/invoice.ts"), "export function invoiceTotal(lines: number[]) {\n  return lines.reduce((a, b) => a + b, 0)\n}\n")
  return dir
}

const useModel = (name: string) => configureEmbeddings(parseEmbedModel(`openai-compatible/${name}`, { OPENAI_BASE_URL: server.base, OPENAI_API_KEY: "sk-test" }))
const headers = (out: string) => out.match(/^src\/\S+:\d+-\d+$/gm) ?? []

beforeAll(() => {
  savedCache = process.env.XDG_CACHE_HOME
  process.env.XDG_CACHE_HOME = cache
})
afterAll(() => {
  configureEmbeddings(undefined)
  closeIndexes()
  server.stop()
  if (savedCache === undefined) delete process.env.XDG_CACHE_HOME
  else process.env.XDG_CACHE_HOME = savedCache
})

test("vectors find what shares no word with the query; fused with the lexical ranking", async () => {
  const workspace = makeWorkspace("fusion")
  const executor = new LocalExecutor({ directory: workspace })
  try {
    configureEmbeddings(undefined)
    expect(headers((await executor.executeUnsafe("search", ["rate limiting"])) as string)).toEqual(["src/pager.ts:1-4"])
    useModel("fake-a")
    expect(headers((await executor.executeUnsafe("search", ["rate limiting"])) as string)).toEqual(["src/pager.ts:1-4", "src/throttle.ts:1-10", "src/invoice.ts:1-3"])
    // One request for the query, one for the three chunks (path and names first), with the key.
    expect(server.requests.map((r) => [r.model, r.input.length, r.authorization])).toEqual([
      ["fake-a", 1, "Bearer sk-test"],
      ["fake-a", 3, "Bearer sk-test"],
    ])
    expect(server.requests[1]!.input[0]).toStartWith("src/invoice.ts invoiceTotal\nexport function invoiceTotal(")
    const stored = () => indexFor(workspace).store.db.query("SELECT model, count(*) AS n FROM vectors GROUP BY model").all()
    expect(stored()).toEqual([{ model: "openai-compatible/fake-a", n: 3 }])
    // Known chunks are not embedded again; a changed file's are.
    await executor.executeUnsafe("writeFile", { path: "src/invoice.ts", content: "export function vatTotal() {}\n" })
    await executor.executeUnsafe("search", ["billing"])
    expect(server.requests.slice(2).map((r) => r.input.length)).toEqual([1, 1])
    // Another model: every chunk again, stored under its name.
    useModel("fake-b")
    await executor.executeUnsafe("search", ["billing"])
    expect(server.requests.slice(4).map((r) => [r.model, r.input.length])).toEqual([["fake-b", 1], ["fake-b", 3]])
    expect(stored()).toEqual([{ model: "openai-compatible/fake-b", n: 3 }])
  } finally {
    await executor.close()
  }
})

test("an embedding server that fails leaves the lexical ranking, with a note", async () => {
  const workspace = makeWorkspace("failing")
  const executor = new LocalExecutor({ directory: workspace })
  try {
    useModel("fake-a")
    failing = true
    const out = (await executor.executeUnsafe("search", ["rate limiting"])) as string
    expect(out).toStartWith("[embeddings unavailable (embeddings from openai-compatible/fake-a at")
    expect(out).toContain("the embedding server is down); ranked by words only]\nsrc/pager.ts:1-4\n")
  } finally {
    failing = false
    configureEmbeddings(undefined)
    await executor.close()
  }
})

test("clanka exec --embed-model: the sandboxed executor gets vectors from the agent's side and never sees the key", async () => {
  const workspace = makeWorkspace("cli")
  const before = server.requests.length
  const script = 'console.log(await search("rate limiting", { limit: 2 })); console.log(await bash({ command: "echo key=${OPENAI_API_KEY:-unset}" }))'
  const result = await clanka(["exec", "-C", workspace, "--embed-model", "openai-compatible/fake-cli", "-e", script], {
    env: { XDG_CACHE_HOME: cache, OPENAI_BASE_URL: server.base, OPENAI_API_KEY: "sk-secret" },
  })
  expect(result.stderr).toBe("")
  expect(headers(result.stdout)).toEqual(["src/pager.ts:1-4", "src/throttle.ts:1-10"])
  expect(result.stdout).toEndWith("key=unset\n\n")
  expect(server.requests.slice(before).map((r) => r.authorization)).toEqual(["Bearer sk-secret", "Bearer sk-secret"])
  expect(await clanka(["exec", "--no-search", "--embed-model", "openai/x", "-e", "1"])).toEqual({
    code: 2,
    stdout: "",
    stderr: "clanka: --embed-model is for search, which --no-search turns off; pass only one of them\n",
  })
  const bad = await clanka(["exec", "--embed-model", "nomic-embed-text", "-e", "1"])
  expect(bad).toEqual({
    code: 2,
    stdout: "",
    stderr: 'clanka: --embed-model takes openai/MODEL or openai-compatible/MODEL (e.g. openai/text-embedding-3-small, openai-compatible/nomic-embed-text), got "nomic-embed-text"\n',
  })
})
