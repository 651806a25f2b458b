#!/usr/bin/env bun
// Start-up and sandbox figures: cold start of `dist/clanka --version`, peak RSS of
// `clanka exec -e 1`, and the p50 of a trivial execute through the LocalExecutor in-process.
// Usage: bun scripts/bench.ts   (builds dist/clanka first if it is missing)
import { existsSync } from "node:fs"
import { join } from "node:path"
import { LocalExecutor } from "../src/executor/local.ts"
import { median, percentile } from "./stats.ts"

const root = join(import.meta.dir, "..")
const bin = join(root, "dist/clanka")
if (!existsSync(bin)) await Bun.$`${process.execPath} ${join(root, "scripts/build.ts")}`


async function timeCommand(args: string[], runs: number): Promise<{ wallMs: number[]; rssMiB: number[] }> {
  const wallMs: number[] = []
  const rssMiB: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    const child = Bun.spawn(args, { stdout: "ignore", stderr: "ignore", cwd: root })
    await child.exited
    wallMs.push(performance.now() - started)
    rssMiB.push((child.resourceUsage()?.maxRSS ?? 0) / 1024 / 1024) // maxRSS is in bytes
  }
  return { wallMs, rssMiB }
}

// The floor: an empty program compiled the same way.
const empty = join(root, ".bench/empty")
await Bun.write(join(root, ".bench/empty.ts"), "")
await Bun.$`${process.execPath} build --compile --minify ${join(root, ".bench/empty.ts")} --outfile ${empty}`.quiet()
await timeCommand([empty], 5)
const floor = await timeCommand([empty], 50)

// A few warm-up runs so the binary is in the page cache, as it is for a user's second run.
await timeCommand([bin, "--version"], 5)
const version = await timeCommand([bin, "--version"], 50)
// The sandbox on in each backend (bubblewrap is the default where it runs; Landlock where it does
// not) and off, interleaved so that load on the machine falls on all alike.
const exec = { wallMs: [] as number[], rssMiB: [] as number[] }
const execLandlock = { wallMs: [] as number[], rssMiB: [] as number[] }
const execOff = { wallMs: [] as number[], rssMiB: [] as number[] }
for (let i = 0; i < 30; i++) {
  for (const [into, extra] of [[exec, ["--sandbox-backend", "bwrap"]], [execLandlock, ["--sandbox-backend", "landlock"]], [execOff, ["--sandbox", "off"]]] as const) {
    const one = await timeCommand([bin, "exec", ...extra, "-e", "1"], 1)
    into.wallMs.push(...one.wallMs)
    into.rssMiB.push(...one.rssMiB)
  }
}

const executor = new LocalExecutor({ directory: root })
const times: number[] = []
for (let i = 0; i < 1000; i++) {
  const started = performance.now()
  for await (const _ of executor.execute({ script: "1", onTaskComplete() {}, onSubagent: async () => "" }));
  if (i >= 50) times.push(performance.now() - started)
}
await executor.close()

const fmt = (n: number) => n.toFixed(2)
console.log(`empty compiled Bun program  cold start median ${fmt(median(floor.wallMs))} ms`)
console.log(`dist/clanka --version      cold start median ${fmt(median(version.wallMs))} ms (p90 ${fmt(percentile(version.wallMs, 0.9))} ms, ${version.wallMs.length} runs)`)
console.log(`dist/clanka exec -e 1      wall median ${fmt(median(exec.wallMs))} ms, peak RSS median ${fmt(median(exec.rssMiB))} MiB (max ${fmt(Math.max(...exec.rssMiB))} MiB), sandbox on (bwrap)`)
console.log(`  --sandbox-backend landlock wall median ${fmt(median(execLandlock.wallMs))} ms, peak RSS median ${fmt(median(execLandlock.rssMiB))} MiB (costs ${fmt(median(execLandlock.wallMs) - median(execOff.wallMs))} ms over off)`)
console.log(`  --sandbox off            wall median ${fmt(median(execOff.wallMs))} ms (bwrap costs ${fmt(median(exec.wallMs) - median(execOff.wallMs))} ms)`)
console.log(`trivial execute, in-process p50 ${fmt(median(times))} ms, p90 ${fmt(percentile(times, 0.9))} ms (${times.length} runs)`)
