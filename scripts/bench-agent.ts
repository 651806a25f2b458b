#!/usr/bin/env bun
// Agent figures: a trivial task end to end against a zero-latency local fake model (wall and peak
// RSS of `clanka run`), the size of the fixed part of the first request, and the loop's own
// per-turn overhead over a 50-turn scripted session (model and executor answer instantly, so
// every millisecond measured is the loop's).
// Usage: bun scripts/bench-agent.ts   (uses dist/clanka when present — `npm run build` — else source)
//        CLANKA_BENCH_BIN=/path/to/clanka CLANKA_BENCH_RUNS=40 bun scripts/bench-agent.ts
//        (another build, e.g. an older one for before/after figures; more runs on a busy machine)
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createAgent } from "../src/agent/agent.ts"
import { EXECUTE_TOOL } from "../src/contract.ts"
import { buildSystemPrompt } from "../src/agent/system-prompt.ts"
import type { Capabilities, ExecuteOptions, Executor } from "../src/contract.ts"
import type { Model, Part } from "../src/providers/model.ts"
import { builtinRegistry } from "../src/tools/registry.ts"
import { startFakeModel, type FakeTurn } from "../test/support/fake-model.ts"
import { median, percentile } from "./stats.ts"

const root = join(import.meta.dir, "..")
const bin = join(root, "dist/clanka")
const command = process.env.CLANKA_BENCH_BIN ? [process.env.CLANKA_BENCH_BIN] : existsSync(bin) ? [bin] : [process.execPath, join(root, "src/cli/main.ts")]
const fmt = (n: number) => n.toFixed(2)

// 1. Trivial task end to end: the model calls taskComplete at once.
const runs = Number(process.env.CLANKA_BENCH_RUNS) || 20
const done: FakeTurn = { blocks: [{ type: "execute", script: 'await taskComplete("done")' }] }
const server = await startFakeModel("anthropic", Array.from({ length: 3 * runs + 10 }, () => done))
const directory = mkdtempSync(join(tmpdir(), "clanka-bench-"))
// Runs are saved as sessions, as by default, but not into the user's own state directory.
const stateHome = mkdtempSync(join(tmpdir(), "clanka-bench-state-"))
const wallMs: number[] = []
const rssMiB: number[] = []
const wallLandlockMs: number[] = []
const wallOffMs: number[] = []
const emptyMs: number[] = []
// An empty compiled Bun program, run in turn with the others: the machine's own yardstick, so that
// figures of machines or days that differ can be compared as multiples of it.
const empty = join(stateHome, "empty")
writeFileSync(`${empty}.ts`, 'console.log("x")\n')
Bun.spawnSync([process.execPath, "build", "--compile", `${empty}.ts`, "--outfile", empty], { stdout: "ignore", stderr: "inherit" })
// The sandbox on in bubblewrap (the default where it runs), in Landlock, and off, interleaved.
const variants = [["--sandbox-backend", "bwrap"], ["--sandbox-backend", "landlock"], ["--sandbox", "off"]]
for (let i = 0; i < 3 * (runs + 2); i++) {
  const variant = i % 3
  const off = variant === 2
  if (variant === 0) {
    const started = performance.now()
    Bun.spawnSync([empty], { stdout: "ignore", stderr: "ignore" })
    if (i >= 6) emptyMs.push(performance.now() - started)
  }
  const started = performance.now()
  const child = Bun.spawn([...command, "run", ...variants[variant]!, "-o", "text", "-m", "anthropic/claude-sonnet-4-5", "-C", directory, "say done"], {
    env: { ...process.env, ...server.env, CLANKA_HOME: stateHome },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
  })
  const out = await new Response(child.stdout).text()
  const code = await child.exited
  if (code !== 0 || out !== "done\n") throw new Error(`clanka run failed (exit ${code}): ${out}`)
  if (i < 6) continue // warm-up: page cache
  if (off) {
    wallOffMs.push(performance.now() - started)
    continue
  }
  if (variant === 1) {
    wallLandlockMs.push(performance.now() - started)
    continue
  }
  wallMs.push(performance.now() - started)
  rssMiB.push((child.resourceUsage()?.maxRSS ?? 0) / 1024 / 1024) // bytes
}
await server.close()
rmSync(directory, { recursive: true, force: true })
rmSync(stateHome, { recursive: true, force: true })

// 2. The fixed part of the first request: system prompt (no AGENTS.md) and the tool schema.
const system = buildSystemPrompt({ toolsDts: builtinRegistry().dts, agentsMd: null, directory: "/repo" })
const fixedChars = system.length + JSON.stringify(EXECUTE_TOOL).length

// 3. Loop overhead: 50 turns, each an instant model response and an instant script.
const TURNS = 50
function instantModel(): Model {
  let turn = 0
  return {
    provider: "bench",
    id: "instant",
    contextWindow: null,
    async *stream(): AsyncIterable<Part> {
      turn++
      const script = turn < TURNS ? `console.log(${turn})` : 'taskComplete("done")'
      const id = `call_${turn}`
      yield { type: "text-start" }
      yield { type: "text-delta", delta: `Turn ${turn}.` }
      yield { type: "text-end" }
      yield { type: "tool-input-start", id, name: "execute" }
      const json = JSON.stringify({ script })
      for (let i = 0; i < json.length; i += 8) yield { type: "tool-input-delta", id, delta: json.slice(i, i + 8) }
      yield { type: "tool-input-end", id }
      yield { type: "tool-call", id, name: "execute", input: { script } }
      yield { type: "finish", stop: "tool", usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 } }
    },
  }
}
const instantExecutor: Executor = {
  capabilities: async (): Promise<Capabilities> => ({
    toolsDts: builtinRegistry().dts,
    agentsMd: null,
    supportsSearch: false,
    sandbox: { mode: "off", network: true },
    protocolVersion: 1,
    version: "bench",
    directory: "/repo",
  }),
  async *execute(options: ExecuteOptions) {
    const match = /taskComplete\("(.*)"\)/.exec(options.script)
    if (match) options.onTaskComplete(match[1]!)
    else yield "ok\n"
  },
  executeUnsafe: async () => null,
  close: async () => {},
}
const perTurn: number[] = []
const sessions: number[] = []
for (let session = 0; session < 30; session++) {
  const agent = createAgent({ executor: instantExecutor, model: instantModel() })
  const started = performance.now()
  let last = started
  for await (const event of agent.send("bench")) {
    if (event._tag === "ScriptOutput") {
      const now = performance.now()
      if (session >= 5) perTurn.push(now - last)
      last = now
    }
  }
  if (session >= 5) sessions.push(performance.now() - started)
}

console.log(`command: ${command.map((part) => part.replace(root + "/", "")).join(" ")} run (trivial task, local fake Anthropic server)`)
console.log(`trivial task end to end   wall median ${fmt(median(wallMs))} ms (p90 ${fmt(percentile(wallMs, 0.9))} ms), peak RSS median ${fmt(median(rssMiB))} MiB (max ${fmt(Math.max(...rssMiB))} MiB), ${runs} runs, sandbox on (bwrap)`)
console.log(`  --sandbox-backend landlock wall median ${fmt(median(wallLandlockMs))} ms (costs ${fmt(median(wallLandlockMs) - median(wallOffMs))} ms over off)`)
console.log(`  --sandbox off            wall median ${fmt(median(wallOffMs))} ms (p90 ${fmt(percentile(wallOffMs, 0.9))} ms; bwrap costs ${fmt(median(wallMs) - median(wallOffMs))} ms)`)
const times = (ms: number[]) => (median(ms) / median(emptyMs)).toFixed(1)
console.log(`  as multiples of an empty compiled Bun program (median ${fmt(median(emptyMs))} ms): bwrap ${times(wallMs)}×, Landlock ${times(wallLandlockMs)}×, off ${times(wallOffMs)}×`)
console.log(`fixed first request       ${fixedChars} characters (system prompt ${system.length}, tool schema ${fixedChars - system.length})`)
console.log(`loop overhead per turn    p50 ${fmt(median(perTurn))} ms, p90 ${fmt(percentile(perTurn, 0.9))} ms (${perTurn.length} turns); 50-turn session median ${fmt(median(sessions))} ms`)
