#!/usr/bin/env bun
// The trivial task end to end with several builds, run in turns (in alternating order) so that a
// busy machine weighs on all alike: bun scripts/bench-ab.ts OLD/clanka dist/clanka
// (OFF=1: --sandbox off; BACKEND=landlock: --sandbox-backend landlock; N=runs). Prints each build's
// wall median and minimum, and the median CPU time the kernel reports for clanka's process
// (resourceUsage: its own and that of the processes it waited for; a comparison between builds,
// not an account: `perf record -a` attributes a run's CPU by process).
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startFakeModel, type FakeTurn } from "../test/support/fake-model.ts"
const bins = process.argv.slice(2)
const N = Number(process.env.N ?? 20)
const off = process.env.OFF === "1"
const sandbox = off ? ["--sandbox", "off"] : process.env.BACKEND ? ["--sandbox-backend", process.env.BACKEND] : []
const done: FakeTurn = { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] }
const server = await startFakeModel("anthropic", Array.from({ length: (N + 3) * bins.length + 5 }, () => done))
const directory = mkdtempSync(join(tmpdir(), "clanka-ab-"))
const stateHome = mkdtempSync(join(tmpdir(), "clanka-ab-state-"))
const res = new Map<string, number[]>()
const cpu = new Map<string, number[]>()
for (let i = 0; i < N + 3; i++) for (const bin of i % 2 ? [...bins].reverse() : bins) {
  const t0 = performance.now()
  const child = Bun.spawn([bin, "run", ...sandbox, "-o", "text", "-m", "anthropic/claude-sonnet-4-5", "-C", directory, "say done"], { env: { ...process.env, ...server.env, CLANKA_HOME: stateHome }, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  const code = await child.exited
  if (code !== 0 || out !== "done\n") throw new Error(`${bin}: exit ${code} ${out} ${err}`)
  if (i < 3) continue
  res.set(bin, [...(res.get(bin) ?? []), performance.now() - t0])
  const used = child.resourceUsage()?.cpuTime.total
  if (used !== undefined) cpu.set(bin, [...(cpu.get(bin) ?? []), Number(used) / 1000])
}
await server.close()
rmSync(directory, { recursive: true, force: true })
rmSync(stateHome, { recursive: true, force: true })
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
for (const bin of bins) {
  const xs = res.get(bin)!
  const used = cpu.get(bin)
  console.log(`${bin.padEnd(34)} median ${med(xs).toFixed(1)} ms  min ${Math.min(...xs).toFixed(1)} ms  CPU ${used ? `${med(used).toFixed(1)} ms` : "?"}  (${xs.length} runs${sandbox.length ? `, ${sandbox.join(" ")}` : ""})`)
}
