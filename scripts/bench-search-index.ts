// Benchmark of the search index (search(query)) on generated TypeScript trees.
// Usage: bun scripts/bench-search-index.ts [--files N] [--big-files N] [--runs N]
// Prints: the first index of --files files (default 10,000); the re-index after one file changes
// (the stat scan a search does, and the write tools' refresh); the index size on disk; the query
// p50 (ranking and chunk lookup) on --big-files files of 5 declarations each (default 20,000, so
// 100,000 chunks), and the p50 of a whole search call there (stat scan of the tree included); the
// words come from 30 equally common ones (the worst case) and then from a Zipf distribution.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { SearchIndex } from "../src/tools/semantic/index.ts"
import { toolCalled } from "../src/tools/semantic/live.ts"
import { lexicalRanking, pick } from "../src/tools/semantic/query.ts"
import { median } from "./stats.ts"

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(name)
  return index === -1 ? fallback : Number(process.argv[index + 1])
}
const fileCount = flag("--files", 10_000)
const bigFiles = flag("--big-files", 20_000)
const runs = flag("--runs", 7)

let seed = 7
const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff)
const words = ["user", "order", "cache", "config", "request", "handler", "session", "token", "buffer", "stream", "parse", "render", "update", "value", "result", "error", "index", "table", "query", "event", "invoice", "payment", "retry", "socket", "schema", "layout", "cursor", "metric", "queue", "worker"]
const uniform = () => words[Math.floor(random() * words.length)]!
// Real code's words are Zipf-distributed: a few very common, most rare. 5,000 made-up words.
const syllables = ["ka", "lo", "mi", "ra", "tu", "ne", "so", "vi", "de", "po", "an", "el", "or", "is", "ub"]
const zipfWords: string[] = []
for (let i = 0; zipfWords.length < 5000; i++) {
  const a = syllables[i % 15]!, b = syllables[Math.floor(i / 15) % 15]!, c = syllables[Math.floor(i / 225) % 15]!
  zipfWords.push(i < 225 ? a + b : a + b + c)
}
const zipfCumulative: number[] = []
zipfWords.reduce((sum, _w, rank) => (zipfCumulative[rank] = sum + 1 / (rank + 1)), 0)
const zipf = () => {
  const target = random() * zipfCumulative.at(-1)!
  let lo = 0, hi = zipfCumulative.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (zipfCumulative[mid]! < target) lo = mid + 1
    else hi = mid
  }
  return zipfWords[lo]!
}
let pick1 = uniform
const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1)

/** A module of `declarations` functions of about 8 lines each. */
function moduleText(declarations: number): string {
  const out: string[] = [`import { ${pick1()} } from "./${pick1()}"`, ""]
  for (let d = 0; d < declarations; d++) {
    const name = `${pick1()}${cap(pick1())}${cap(pick1())}`
    out.push(`/** ${cap(pick1())} the ${pick1()} of a ${pick1()} when the ${pick1()} changes. */`)
    out.push(`export function ${name}(${pick1()}: ${cap(pick1())}, ${pick1()}Count: number) {`)
    for (let l = 0; l < 5; l++) out.push(`  const ${pick1()}${cap(pick1())} = ${pick1()}.${pick1()}(${pick1()}Count + ${l})`)
    out.push("}", "")
  }
  return out.join("\n")
}

function makeTree(files: number, declarations: number): string {
  const root = mkdtempSync(path.join(tmpdir(), "clanka-bench-index-"))
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `src/${pick1()}/${pick1()}`)
    mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, `${pick1()}${cap(pick1())}${i}.ts`), moduleText(declarations))
  }
  return root
}

function dirSize(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0)
}
function treeBytes(dir: string): number {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) total += statSync(path.join(entry.parentPath, entry.name)).size
  return total
}
const ms = (value: number) => `${value.toFixed(1)} ms`
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`

// 1. First index, re-index after one change, size.
{
  const tree = makeTree(fileCount, 3)
  const db = mkdtempSync(path.join(tmpdir(), "clanka-bench-db-"))
  try {
    const index = new SearchIndex({ directory: tree, dir: db, onProgress: () => {} })
    let started = performance.now()
    await index.catchUp(2 ** 31 - 1)
    const first = performance.now() - started
    console.log(`first index of ${fileCount} files (${mb(treeBytes(tree))} of source, ${index.store.chunkCount()} chunks): ${ms(first)}`)
    index.store.db.run("PRAGMA wal_checkpoint(TRUNCATE)")
    console.log(`index size on disk: ${mb(dirSize(db))}`)
    const files = readdirSync(tree, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name))
    const scan: number[] = []
    const refresh: number[] = []
    for (let run = 0; run < runs; run++) {
      const target = files[Math.floor(random() * files.length)]!
      writeFileSync(target, moduleText(3))
      started = performance.now()
      toolCalled({}) // a tool such as bash: the change was made behind the index's back
      await index.catchUp(2 ** 31 - 1)
      scan.push(performance.now() - started)
      writeFileSync(target, moduleText(3))
      started = performance.now()
      await index.refresh([path.relative(tree, target)])
      refresh.push(performance.now() - started)
    }
    console.log(`re-index after one file changed, median of ${runs}: ${ms(median(scan))} by the stat scan of a search call; ${ms(median(refresh))} by a write tool's refresh`)
    index.close()
  } finally {
    rmSync(tree, { recursive: true, force: true })
    rmSync(db, { recursive: true, force: true })
  }
}

// 2. Queries on 100,000 chunks: words from 30 equally common ones (every chunk matches every
// query: the worst case), then Zipf-distributed words as in real code.
for (const [label, source] of [["30 equally common words", uniform], ["Zipf over 5,000 words", zipf]] as const) {
  pick1 = source
  const tree = makeTree(bigFiles, 5)
  try {
    const index = new SearchIndex({ directory: tree, onProgress: () => {} })
    await index.catchUp(2 ** 31 - 1)
    const chunks = index.store.chunkCount()
    const queries = Array.from({ length: 50 }, () => `${pick1()} the ${pick1()} of a ${pick1()} ${pick1()}`)
    const rank: number[] = []
    const scanned: number[] = []
    for (const [i, query] of queries.entries()) {
      let started = performance.now()
      pick(index.store, lexicalRanking(index.store, query, 100), 5, () => true)
      rank.push(performance.now() - started)
      if (i % 5 !== 0) continue
      toolCalled({}) // as after a bash call: the next search scans the tree
      started = performance.now()
      await index.catchUp(2 ** 31 - 1)
      pick(index.store, lexicalRanking(index.store, query, 100), 5, () => true)
      scanned.push(performance.now() - started)
    }
    console.log(`query p50 on ${chunks} chunks (${bigFiles} files, ${label}): ${ms(median(rank))} ranking; ${ms(median(scanned))} when the search scans the tree first (after a bash call)`)
    index.close()
  } finally {
    rmSync(tree, { recursive: true, force: true })
  }
}
