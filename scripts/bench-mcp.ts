#!/usr/bin/env bun
// MCP and configuration figures: what `clanka exec -e 1` costs with no configuration, with a
// clanka.json but no MCP server (files read, nothing MCP loaded), and with one stdio server
// (server-everything under node); and the p50 of an MCP tool call from a script.
// Usage: bun scripts/bench-mcp.ts [--baseline OTHER_BINARY]   (builds dist/clanka if missing)
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { LocalExecutor } from "../src/executor/local.ts"
import { median, percentile } from "./stats.ts"

const root = join(import.meta.dir, "..")
const bin = join(root, "dist/clanka")
if (!existsSync(bin)) await Bun.$`${process.execPath} ${join(root, "scripts/build.ts")}`
const baselineAt = process.argv.indexOf("--baseline")
const baseline = baselineAt > 0 ? process.argv[baselineAt + 1] : undefined
const everything = { command: "node", args: [join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"] }

const work = mkdtempSync(join(tmpdir(), "clanka-bench-mcp-"))
const dirs = { none: join(work, "none"), config: join(work, "config"), mcp: join(work, "mcp") }
for (const dir of Object.values(dirs)) await Bun.$`mkdir -p ${dir}`
writeFileSync(join(dirs.config, "clanka.json"), JSON.stringify({ sandbox: "workspace-write", maxTurns: 50 }))
writeFileSync(join(dirs.mcp, "clanka.json"), JSON.stringify({ mcpServers: { everything } }))
const env = { ...process.env, XDG_CONFIG_HOME: join(work, "xdg") }

async function wall(args: string[], cwd: string): Promise<number> {
  const started = performance.now()
  const child = Bun.spawn(args, { stdout: "ignore", stderr: "ignore", cwd, env })
  await child.exited
  return performance.now() - started
}

const runs: Record<string, number[]> = { none: [], config: [], mcp: [], baseline: [] }
for (let i = 0; i < 3; i++) await wall([bin, "exec", "-e", "1"], dirs.none)
// Interleaved, so that load on the machine falls on every variant alike.
for (let i = 0; i < 30; i++) {
  runs.none!.push(await wall([bin, "exec", "-e", "1"], dirs.none))
  runs.config!.push(await wall([bin, "exec", "-e", "1"], dirs.config))
  if (baseline) runs.baseline!.push(await wall([baseline, "exec", "-e", "1"], dirs.none))
  if (i % 3 === 0) runs.mcp!.push(await wall([bin, "exec", "-e", "1"], dirs.mcp))
}
const ms = (values: number[]) => `${median(values).toFixed(1)} ms (p90 ${percentile(values, 0.9).toFixed(1)})`
console.log(`exec -e 1, no configuration:               ${ms(runs.none!)}`)
console.log(`exec -e 1, clanka.json without MCP:        ${ms(runs.config!)}`)
if (baseline) console.log(`exec -e 1, baseline binary (${baseline}): ${ms(runs.baseline!)}`)
console.log(`exec -e 1, one stdio MCP server (node):    ${ms(runs.mcp!)}`)

// An MCP tool call from a script, in-process: the round trip worker → executor → server → back.
const executor = new LocalExecutor({ directory: dirs.mcp, mcp: { mcpServers: { everything } } })
const started = performance.now()
await executor.capabilities()
const startMs = performance.now() - started
let output = ""
// Date.now is the script's only clock: 500 calls in a row, timed as a whole.
const script = `await mcp.everything.get_sum({ a: 0, b: 1 }); const s = Date.now(); for (let i = 0; i < 500; i++) await mcp.everything.get_sum({ a: i, b: 1 }); console.log(Date.now() - s)`
for await (const text of executor.execute({ script, onTaskComplete() {}, onSubagent: async () => "" })) output += text
await executor.close()
console.log(`server-everything start + tool list (in-process executor): ${startMs.toFixed(0)} ms`)
console.log(`mcp.everything.get_sum from a script, 500 calls in a row: ${(Number(output) / 500).toFixed(3)} ms per call`)
rmSync(work, { recursive: true, force: true })
