// Quality of search(query) on code nobody here wrote: the source of an npm package at a pinned
// version (scripts/search-quality.json: the package, and questions each with the file and the
// declaration that answers it). Prints recall@5 and MRR@10 of the lexical ranking (a hit is a
// returned chunk that covers the declaration line) and of `rg` over the query's words (files
// listed in the order rg prints them, as a model reading rg() output sees them; also, more
// leniently, ranked by how many of the words they contain; a hit is the right file, which is more
// lenient than the chunk rule).
// Usage: bun scripts/bench-search-quality.ts [--cache DIR] [--verbose]
// The package is fetched once with `npm pack` into the cache directory (default $TMPDIR/clanka-bench-npm).
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { SearchIndex } from "../src/tools/semantic/index.ts"
import { lexicalRanking } from "../src/tools/semantic/query.ts"
import { queryTerms } from "../src/tools/semantic/terms.ts"

interface QualitySet {
  package: string
  version: string
  root: string
  queries: Array<{ query: string; file: string; symbol: string }>
}

const set = JSON.parse(readFileSync(path.join(import.meta.dir, "search-quality.json"), "utf8")) as QualitySet
const cacheIndex = process.argv.indexOf("--cache")
const cache = cacheIndex === -1 ? path.join(tmpdir(), "clanka-bench-npm") : path.resolve(process.argv[cacheIndex + 1]!)
const verbose = process.argv.includes("--verbose")

const unpacked = path.join(cache, `${set.package}-${set.version}`)
if (!existsSync(path.join(unpacked, "package"))) {
  mkdirSync(unpacked, { recursive: true })
  const pack = spawnSync("npm", ["pack", `${set.package}@${set.version}`, "--silent"], { cwd: unpacked, encoding: "utf8" })
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`)
  const tarball = pack.stdout.trim().split("\n").at(-1)!
  const untar = spawnSync("tar", ["xzf", tarball], { cwd: unpacked })
  if (untar.status !== 0) throw new Error("tar failed")
}
const root = path.join(unpacked, "package", set.root)

const index = new SearchIndex({ directory: root, onProgress: () => {} })
const started = performance.now()
await index.catchUp(2 ** 31 - 1)
const indexMs = performance.now() - started

/** 1-based line of `symbol` in the file. */
function lineOf(file: string, symbol: string): number {
  const lines = readFileSync(path.join(root, file), "utf8").split("\n")
  const at = lines.findIndex((line) => line.includes(symbol))
  if (at === -1) throw new Error(`${file} has no line with ${JSON.stringify(symbol)}`)
  return at + 1
}

/** Files ranked as a model reading `rg -i WORD` output for each word would rank them. */
function rgRanking(query: string): string[] {
  const words = queryTerms(query).filter((word) => word.length >= 3)
  const score = new Map<string, { words: number; lines: number }>()
  for (const word of words) {
    const out = spawnSync("rg", ["-i", "-c", "-F", word, "."], { cwd: root, encoding: "utf8" }).stdout
    for (const row of out.split("\n")) {
      const colon = row.lastIndexOf(":")
      if (colon === -1) continue
      const file = row.slice(0, colon).replace(/^\.\//, "")
      const entry = score.get(file) ?? { words: 0, lines: 0 }
      entry.words++
      entry.lines += Number(row.slice(colon + 1))
      score.set(file, entry)
    }
  }
  return [...score.entries()].sort((a, b) => b[1].words - a[1].words || b[1].lines - a[1].lines || (a[0] < b[0] ? -1 : 1)).map(([file]) => file)
}

/** Files in the order `rg -i "w1|w2|…"` lists them (sorted by path, as rg() runs it): what a model reads. */
function rgOutputOrder(query: string): string[] {
  const words = queryTerms(query).filter((word) => word.length >= 3)
  if (words.length === 0) return []
  const out = spawnSync("rg", ["-i", "-l", "--sort", "path", "-e", words.join("|"), "."], { cwd: root, encoding: "utf8" }).stdout
  return out.split("\n").filter(Boolean).map((file) => file.replace(/^\.\//, ""))
}

const K = 5
const MRR_DEPTH = 10
const totals = { lexical: { hits: 0, rr: 0 }, lexicalFile: { hits: 0, rr: 0 }, rg: { hits: 0, rr: 0 }, rgRanked: { hits: 0, rr: 0 } }
const add = (total: { hits: number; rr: number }, rank: number) => {
  if (rank >= 0 && rank < K) total.hits++
  if (rank >= 0 && rank < MRR_DEPTH) total.rr += 1 / (rank + 1)
}
for (const { query, file, symbol } of set.queries) {
  const line = lineOf(file, symbol)
  const chunks = lexicalRanking(index.store, query, MRR_DEPTH).map((id) => index.store.chunk(id)!)
  const chunkRank = chunks.findIndex((c) => c.path === file && c.start <= line && line <= c.end)
  const files = [...new Set(chunks.map((c) => c.path))]
  const fileRank = files.indexOf(file)
  const rgRank = rgOutputOrder(query).indexOf(file)
  add(totals.lexical, chunkRank)
  add(totals.lexicalFile, fileRank)
  add(totals.rg, rgRank)
  add(totals.rgRanked, rgRanking(query).indexOf(file))
  if (verbose) console.log(`${chunkRank === -1 ? "-" : chunkRank + 1}\t${rgRank === -1 ? "-" : rgRank + 1}\t${query}\t→ ${chunks.slice(0, 3).map((c) => `${c.path}:${c.start}`).join(" ")}`)
}
const n = set.queries.length
const fmt = (t: { hits: number; rr: number }) => `recall@${K} ${(t.hits / n).toFixed(2)}  MRR@${MRR_DEPTH} ${(t.rr / n).toFixed(2)}`
console.log(`${set.package}@${set.version} ${set.root}/: ${index.fileCount} files, ${index.store.chunkCount()} chunks, indexed in ${indexMs.toFixed(0)} ms; ${n} queries`)
console.log(`lexical (chunk covering the declaration): ${fmt(totals.lexical)}`)
console.log(`lexical (right file):                     ${fmt(totals.lexicalFile)}`)
console.log(`rg over the query's words (right file):   ${fmt(totals.rg)}   (files in rg's output order)`)
console.log(`rg, files ranked by words matched:        ${fmt(totals.rgRanked)}   (more than a model reading rg output gets)`)
const ratio = (a: { hits: number }, b: { hits: number }) => `${(a.hits / Math.max(1, b.hits)).toFixed(2)}×`
console.log(`recall@${K} lexical chunk / rg: ${ratio(totals.lexical, totals.rg)}; lexical file / ranked rg: ${ratio(totals.lexicalFile, totals.rgRanked)}; lexical chunk / ranked rg: ${ratio(totals.lexical, totals.rgRanked)}`)
index.close()
