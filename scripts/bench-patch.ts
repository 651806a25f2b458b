// Benchmark of applyPatch: 200 hunks against a 50,000-line file, target ≤ 50 ms.
// Run: node_modules/.bin/bun scripts/bench-patch.ts [runs]
// Each scenario restores the file before every run and prints the median wall time of the
// whole call (parse, match, build, atomic write).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { applyPatch } from "../src/tools/patch/apply-patch.ts"

const LINES = 50_000
const HUNKS = 200
const RUNS = Number(process.argv[2] ?? 15)

// Code-like text with plenty of repeated lines ("}", blank, "return result") so that
// matching has to tell look-alike regions apart.
const original: string[] = []
for (let i = 0; original.length < LINES; i++) {
  original.push(`function step${i}(input) {`, `  const value = input * ${i}`, "  return value", "}", "")
}
original.length = LINES
const text = original.join("\n") + "\n"

/** One hunk every LINES / HUNKS lines: 3 lines of context, one line replaced, 3 more. */
function hunkAt(start: number, shape: (line: string) => string): string[] {
  const lines = original.slice(start, start + 7)
  return [
    ...lines.slice(0, 3).map((line) => ` ${shape(line)}`),
    `-${shape(lines[3]!)}`,
    `+${lines[3]!} // changed`,
    ...lines.slice(4, 7).map((line) => ` ${shape(line)}`),
  ]
}

const starts = Array.from({ length: HUNKS }, (_, k) => Math.floor((k * LINES) / HUNKS) + 1)

const scenarios: Record<string, string> = {
  "Begin Patch, exact": [
    "*** Begin Patch",
    "*** Update File: big.js",
    ...starts.flatMap((start) => ["@@", ...hunkAt(start, (line) => line)]),
    "*** End Patch",
  ].join("\n"),
  "Begin Patch, indentation lost": [
    "*** Begin Patch",
    "*** Update File: big.js",
    ...starts.flatMap((start) => ["@@", ...hunkAt(start, (line) => line.trimStart())]),
    "*** End Patch",
  ].join("\n"),
  "unified diff, line numbers off by 40": [
    "--- a/big.js",
    "+++ b/big.js",
    ...starts.flatMap((start) => [`@@ -${start + 41},7 +${start + 41},7 @@`, ...hunkAt(start, (line) => line)]),
  ].join("\n"),
}

const dir = mkdtempSync(join(tmpdir(), "clanka-bench-"))
const file = join(dir, "big.js")
try {
  console.log(`applyPatch: ${HUNKS} hunks, ${LINES} lines, median of ${RUNS} runs`)
  for (const [name, patch] of Object.entries(scenarios)) {
    const times: number[] = []
    for (let run = 0; run < RUNS; run++) {
      writeFileSync(file, text)
      const started = performance.now()
      await applyPatch(patch, dir)
      times.push(performance.now() - started)
    }
    const changed = readFileSync(file, "utf8").split("\n").filter((line) => line.endsWith("// changed")).length
    if (changed !== HUNKS) throw new Error(`${name}: ${changed} of ${HUNKS} hunks applied`)
    times.sort((a, b) => a - b)
    const median = times[Math.floor(times.length / 2)]!
    console.log(`  ${name.padEnd(38)} median ${median.toFixed(1)} ms  (min ${times[0]!.toFixed(1)}, max ${times[times.length - 1]!.toFixed(1)})`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
