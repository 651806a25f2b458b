// Benchmark: the built-in search against the `rg` binary on a generated tree of 50,000+ files.
// Usage: bun scripts/bench-search.ts [--files N] [--runs N] [--keep]
// Prints the median wall time per query of: the rg engine (rg --json --sort=path, as rg() runs it),
// plain `rg` (multi-threaded, unsorted, output discarded: ripgrep at its fastest) and the built-in
// search; the ratio is builtin / plain rg (target ≤ 4).
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { ProcessRegistry } from "../src/tools/processes.ts"
import { search, type SearchEngine, type SearchOptions } from "../src/tools/search.ts"
import { median } from "./stats.ts"

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(name)
  return index === -1 ? fallback : Number(process.argv[index + 1])
}
const fileCount = flag("--files", 50_000)
const runs = flag("--runs", 5)
const keep = process.argv.includes("--keep")

// Deterministic pseudo-random numbers, so every run searches the same tree.
let seed = 42
function random(): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}
const words = ["user", "order", "cache", "config", "request", "handler", "session", "token", "buffer", "stream", "parse", "render", "update", "value", "result", "error", "index", "table", "query", "event"]
const pick = () => words[Math.floor(random() * words.length)]!

function sourceFile(n: number): string {
  const lines: string[] = [`// generated module ${n}`, `import { ${pick()}, ${pick()} } from "./${pick()}.ts"`, ""]
  const functions = 3 + Math.floor(random() * 5)
  for (let f = 0; f < functions; f++) {
    const name = `${pick()}${pick()[0]!.toUpperCase()}${pick().slice(1)}${n}_${f}`
    lines.push(`export function ${name}(${pick()}: string, ${pick()}: number): ${random() < 0.5 ? "string" : "number"} {`)
    const body = 2 + Math.floor(random() * 6)
    for (let b = 0; b < body; b++) lines.push(`  const ${pick()}${b} = ${pick()}(${pick()}, ${Math.floor(random() * 1000)}) // ${pick()} ${pick()}`)
    lines.push(`  return ${pick()}`, "}", "")
  }
  if (n % 5000 === 7) lines.push(`export const needle = "needleInTheHaystack${n}"`)
  return lines.join("\n")
}

function generate(root: string): void {
  const perDir = 20
  writeFileSync(path.join(root, ".gitignore"), "node_modules/\n*.log\ndist/\n")
  for (let i = 0; i < fileCount; i++) {
    const dir = path.join(root, "src", `pkg${Math.floor(i / (perDir * 25))}`, `mod${Math.floor(i / perDir) % 25}`)
    if (i % perDir === 0) mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, `file${i}.ts`), sourceFile(i))
  }
  // Ignored content that a correct search never reads.
  for (let i = 0; i < 2_000; i++) {
    const dir = path.join(root, "node_modules", `dep${Math.floor(i / 50)}`)
    if (i % 50 === 0) mkdirSync(dir, { recursive: true })
    writeFileSync(path.join(dir, `index${i}.js`), sourceFile(i))
  }
}

const queries: Array<{ label: string; options: SearchOptions }> = [
  { label: "rare literal", options: { pattern: "needleInTheHaystack" } },
  { label: "regex", options: { pattern: "function token\\w+_3\\(" , maxLines: 50_000 } },
  { label: "literal, *.ts glob", options: { pattern: "cacheQuery", glob: "*.ts", maxLines: 50_000 } },
  { label: "no match", options: { pattern: "zebra[0-9]+crossing" } },
  { label: "common word, capped", options: { pattern: "return" } },
]


const root = mkdtempSync(path.join(tmpdir(), "clanka-bench-search-"))
try {
  let started = performance.now()
  generate(root)
  console.log(`generated ${fileCount} files (+2000 ignored) in ${((performance.now() - started) / 1000).toFixed(1)} s at ${root}`)
  const ctx = { directory: root, signal: new AbortController().signal, processes: new ProcessRegistry() }
  // Warm the page cache and check both engines agree before timing.
  for (const { label, options } of queries) {
    const a = await search(options, ctx, "rg")
    const b = await search(options, ctx, "builtin")
    if (a !== b) throw new Error(`engines disagree on "${label}"`)
  }
  console.log(`\n${"query".padEnd(22)} ${"rg engine ms".padStart(13)} ${"plain rg ms".padStart(12)} ${"builtin ms".padStart(11)} ${"ratio".padStart(6)}`)
  const ratios: number[] = []
  for (const { label, options } of queries) {
    const times: Record<SearchEngine | "plain", number[]> = { rg: [], builtin: [], plain: [] }
    const plainArgs = ["--no-config", ...[options.glob ?? []].flat().flatMap((g) => ["--glob", g]), "--regexp", options.pattern]
    for (let run = 0; run < runs; run++) {
      started = performance.now()
      spawnSync("rg", plainArgs, { cwd: root, stdio: "ignore" })
      times.plain.push(performance.now() - started)
      for (const engine of ["rg", "builtin"] as const) {
        started = performance.now()
        await search(options, ctx, engine)
        times[engine].push(performance.now() - started)
      }
    }
    const rg = median(times.rg)
    const plain = median(times.plain)
    const builtin = median(times.builtin)
    ratios.push(builtin / plain)
    console.log(
      `${label.padEnd(22)} ${rg.toFixed(0).padStart(13)} ${plain.toFixed(0).padStart(12)} ${builtin.toFixed(0).padStart(11)} ${(builtin / plain).toFixed(2).padStart(6)}`,
    )
  }
  console.log(`\nworst ratio ${Math.max(...ratios).toFixed(2)} (target ≤ 4)`)
} finally {
  if (keep) console.log(`kept ${root}`)
  else rmSync(root, { recursive: true, force: true })
}
