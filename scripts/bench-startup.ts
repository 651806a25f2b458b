#!/usr/bin/env bun
// Start-up figures: the wall time of `clanka --version`, `clanka help`, `clanka help run` and a
// usage error, against an empty compiled Bun program (`console.log("x")`), each run N times,
// interleaved so that a busy moment of the machine weighs on all of them alike. Both programs are
// compiled into a temporary directory the way scripts/build.ts builds the release (`--bin PATH`
// measures that executable instead of building one).
// Usage: bun scripts/bench-startup.ts [--runs N] [--bin PATH]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { median, percentile } from "./stats.ts"

const root = join(import.meta.dir, "..")
const argv = process.argv.slice(2)
const option = (name: string) => {
  const at = argv.indexOf(name)
  return at < 0 ? undefined : argv[at + 1]
}
const runs = Number(option("--runs") ?? 50)
const work = mkdtempSync(join(tmpdir(), "clanka-bench-startup-"))

let clanka = option("--bin")
if (clanka === undefined) {
  clanka = join(work, "clanka")
  Bun.spawnSync([process.execPath, join(root, "scripts/build.ts"), "--outfile", clanka], { stdout: "ignore", stderr: "inherit" })
}
const empty = join(work, "empty")
writeFileSync(join(work, "empty.ts"), 'console.log("x")\n')
Bun.spawnSync([process.execPath, "build", "--compile", join(work, "empty.ts"), "--outfile", empty], { stdout: "ignore", stderr: "inherit" })

const cases: Array<{ name: string; command: string[]; exitCode: number }> = [
  { name: "empty compiled Bun program", command: [empty], exitCode: 0 },
  { name: "clanka --version", command: [clanka, "--version"], exitCode: 0 },
  { name: "clanka help", command: [clanka, "help"], exitCode: 0 },
  { name: "clanka help run", command: [clanka, "help", "run"], exitCode: 0 },
  { name: "clanka run --bogus (usage error)", command: [clanka, "run", "--bogus"], exitCode: 2 },
]
const times = cases.map(() => [] as number[])
const warmup = 3
for (let i = 0; i < runs + warmup; i++) {
  cases.forEach((c, index) => {
    const started = performance.now()
    const result = Bun.spawnSync(c.command, { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } })
    const ms = performance.now() - started
    if (result.exitCode !== c.exitCode) throw new Error(`${c.name}: exit ${result.exitCode}, expected ${c.exitCode}: ${result.stderr.toString()}`)
    if (i >= warmup) times[index]!.push(ms)
  })
}
rmSync(work, { recursive: true, force: true })

// The minimum is the figure least moved by other work on the machine; the median is what a user sees.
const base = median(times[0]!)
const baseMin = Math.min(...times[0]!)
console.log(`start-up, wall of ${runs} runs each: median (p90), ratio of medians to the empty program; minimum, ratio of minimums`)
cases.forEach((c, index) => {
  const t = times[index]!
  const min = Math.min(...t)
  console.log(
    `  ${c.name.padEnd(34)} ${median(t).toFixed(2).padStart(6)} ms (p90 ${percentile(t, 0.9).toFixed(2).padStart(6)} ms) ${(median(t) / base).toFixed(2)}x   min ${min.toFixed(2).padStart(6)} ms ${(min / baseMin).toFixed(2)}x`,
  )
})
