#!/usr/bin/env bun
// The trivial task end to end with several builds, run in turns (in alternating order) so that a
// busy machine weighs on all alike: bun scripts/bench-ab.ts OLD/clanka dist/clanka
// (OFF=1: --sandbox off; BACKEND=landlock: --sandbox-backend landlock; N=runs per build).
// Each build runs as COPIES copies of its file (default 3), its runs spread over them: two files
// of the same bytes have differed by ~3 ms here (how the page cache holds the file), as much as
// a change being measured. Prints each build's wall median and minimum over all its copies, the
// spread of its copies' medians, and the median CPU time the kernel reports for clanka's process
// (resourceUsage: its own and that of the processes it waited for; a comparison between builds,
// not an account: `perf record -a` attributes a run's CPU by process).
import { copyFileSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startFakeModel, type FakeTurn } from "../test/support/fake-model.ts"
const bins = process.argv.slice(2)
const N = Number(process.env.N ?? 20)
const copies = Math.max(1, Number(process.env.COPIES ?? 3))
const off = process.env.OFF === "1"
const sandbox = off ? ["--sandbox", "off"] : process.env.BACKEND ? ["--sandbox-backend", process.env.BACKEND] : []
const done: FakeTurn = { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] }
const rounds = Math.ceil(N / copies)
const server = await startFakeModel("anthropic", Array.from({ length: (rounds + 3) * bins.length * copies + 5 }, () => done))
const directory = mkdtempSync(join(tmpdir(), "clanka-ab-"))
const stateHome = mkdtempSync(join(tmpdir(), "clanka-ab-state-"))
const copiesDir = mkdtempSync(join(tmpdir(), "clanka-ab-bins-"))
// Copy k of every build, one after the other, so that no build's copies share a moment alone.
const files = Array.from({ length: copies }, (_, k) => bins.map((bin, b) => ({ bin, file: join(copiesDir, `${b}-${k}`) }))).flat()
for (const { bin, file } of files) copyFileSync(bin, file)
const res = new Map<string, number[]>()
const cpu = new Map<string, number[]>()
for (let i = 0; i < rounds + 3; i++) for (const { bin, file } of i % 2 ? [...files].reverse() : files) {
  const t0 = performance.now()
  const child = Bun.spawn([file, "run", ...sandbox, "-o", "text", "-m", "anthropic/claude-sonnet-4-5", "-C", directory, "say done"], { env: { ...process.env, ...server.env, CLANKA_HOME: stateHome }, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  const code = await child.exited
  if (code !== 0 || out !== "done\n") throw new Error(`${bin}: exit ${code} ${out} ${err}`)
  if (i < 3) continue
  res.set(file, [...(res.get(file) ?? []), performance.now() - t0])
  const used = child.resourceUsage()?.cpuTime.total
  if (used !== undefined) cpu.set(bin, [...(cpu.get(bin) ?? []), Number(used) / 1000])
}
await server.close()
for (const dir of [directory, stateHome, copiesDir]) rmSync(dir, { recursive: true, force: true })
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
for (const bin of bins) {
  const mine = files.filter((each) => each.bin === bin).map(({ file }) => res.get(file)!)
  const xs = mine.flat()
  const spread = mine.map(med)
  const used = cpu.get(bin)
  console.log(
    `${bin.padEnd(34)} median ${med(xs).toFixed(1)} ms  min ${Math.min(...xs).toFixed(1)} ms  copies ${Math.min(...spread).toFixed(1)}–${Math.max(...spread).toFixed(1)} ms  CPU ${used ? `${med(used).toFixed(1)} ms` : "?"}  (${xs.length} runs${sandbox.length ? `, ${sandbox.join(" ")}` : ""})`,
  )
}
