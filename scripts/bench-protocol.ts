/**
 * Benchmarks of the executor protocol; prints medians.
 *   node_modules/.bin/bun scripts/bench-protocol.ts [--runs N] [--mb N] [--no-ssh]
 * - round trip of a trivial execute: in-process vs `clanka executor` over local stdio vs over a
 *   loopback sshd on one long-lived connection (targets: stdio ≤ in-process + 1 ms, ssh ≤ stdio + 2 ms);
 * - streaming console output through the protocol (target ≥ 100 MB/s with flat memory), once from
 *   an executor that yields as fast as it is read (the protocol alone) and once from real scripts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { connectExecutor } from "../src/executor/connect.ts"
import type { Executor } from "../src/contract.ts"
import { LocalExecutor } from "../src/executor/local.ts"
import { PROTOCOL_VERSION, VERSION } from "../src/version.ts"
import { BUN, MAIN, SSHD, startSshd, writeRemoteBin } from "../test/support/sshd.ts"

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "300" },
    mb: { type: "string", default: "100" },
    "no-ssh": { type: "boolean" },
    "serve-generator": { type: "boolean" },
  },
})
if (values["serve-generator"]) await serveGenerator()
const runs = Number(values.runs)
const megabytes = Number(values.mb)
const dir = mkdtempSync(join(tmpdir(), "clanka-bench-"))

/**
 * The far side of the protocol-only measurement: an Executor whose output is a generator of 1 KiB
 * lines, so the only costs left are the protocol's (framing, JSON, pipes).
 */
async function serveGenerator(): Promise<never> {
  const { serveExecutor } = await import("../src/protocol/server.ts")
  const line = "x".repeat(1023) + "\n"
  const executor: Executor = {
    capabilities: async () => ({
      toolsDts: "",
      agentsMd: null,
      supportsSearch: false,
      sandbox: { mode: "off" as const, network: true },
      protocolVersion: PROTOCOL_VERSION,
      version: VERSION,
      directory: process.cwd(),
    }),
    async *execute({ script }) {
      for (let i = Number(script); i > 0; i--) yield line
    },
    executeUnsafe: async () => null,
    close: async () => {},
  }
  await serveExecutor(executor, process.stdin, process.stdout)
  process.exit(0)
}

const noop = { onTaskComplete: () => {}, onSubagent: async () => "" }

async function roundTrips(executor: Executor): Promise<{ p50: number; p90: number }> {
  const times: number[] = []
  for (let i = 0; i < runs + 20; i++) {
    const started = performance.now()
    for await (const _ of executor.execute({ ...noop, script: "console.log(1)" }));
    if (i >= 20) times.push(performance.now() - started) // the first ones warm up workers and JIT
  }
  times.sort((a, b) => a - b)
  return { p50: times[Math.floor(times.length / 2)]!, p90: times[Math.floor(times.length * 0.9)]! }
}

/** Streams `megabytes` MiB of console output; returns MB/s and the peak RSS seen on each side. */
async function stream(executor: Executor, serverPid?: number, generator = false): Promise<string> {
  const line = "x".repeat(1023)
  const lines = megabytes * 1024
  const script = generator ? String(lines) : `const line = ${JSON.stringify(line)}; for (let i = 0; i < ${lines}; i++) console.log(line)`
  let bytes = 0
  let peak = 0
  const started = performance.now()
  for await (const text of executor.execute({ ...noop, script })) {
    bytes += text.length
    peak = Math.max(peak, process.memoryUsage().rss)
  }
  const seconds = (performance.now() - started) / 1000
  if (bytes !== lines * 1024) throw new Error(`streamed ${bytes} bytes, expected ${lines * 1024}`)
  const server = serverPid ? `, executor peak RSS ${peakRss(serverPid)} MB` : ""
  return `${(bytes / 1e6 / seconds).toFixed(0)} MB/s (${(bytes / 1e6).toFixed(0)} MB in ${seconds.toFixed(2)} s; client peak RSS ${(peak / 1e6).toFixed(0)} MB${server})`
}

function peakRss(pid: number): string {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return (Number(status.match(/VmHWM:\s+(\d+)/)?.[1] ?? 0) / 1000).toFixed(0)
}

const ms = (value: number) => `${value.toFixed(3)} ms`
const report = (name: string, result: { p50: number; p90: number }) =>
  console.log(`${name.padEnd(34)} p50 ${ms(result.p50)}  p90 ${ms(result.p90)}`)

console.log(`execute round trip of "console.log(1)", ${runs} runs each`)
const local = new LocalExecutor({ directory: dir })
const inProcess = await roundTrips(local)
report("in-process (LocalExecutor)", inProcess)

const pidFile = join(dir, "executor.pid")
const stdio = await connectExecutor({ executor: `echo $$ > '${pidFile}'; exec '${BUN}' '${MAIN}' executor -C '${dir}'` })
const overStdio = await roundTrips(stdio)
report("local stdio (clanka executor)", overStdio)
console.log(`  stdio − in-process: ${ms(overStdio.p50 - inProcess.p50)} (target ≤ 1 ms)`)

if (!values["no-ssh"] && existsSync(SSHD)) {
  const sshd = await startSshd()
  process.env.PATH = sshd.env.PATH
  const remoteBin = writeRemoteBin(join(sshd.dir, "clanka"))
  const ssh = await connectExecutor({ ssh: `${sshd.alias}:${dir}`, remoteBin })
  const overSsh = await roundTrips(ssh)
  report("loopback ssh (one connection)", overSsh)
  console.log(`  ssh − stdio: ${ms(overSsh.p50 - overStdio.p50)} (target ≤ 2 ms)`)
  await ssh.close()
  await sshd.stop()
}

console.log(`\nstreaming ${megabytes} MiB of console output (1 KiB lines)`)
const generatorPid = join(dir, "generator.pid")
const generator = await connectExecutor({
  executor: `echo $$ > '${generatorPid}'; exec '${BUN}' '${import.meta.path}' --serve-generator`,
})
console.log(`protocol alone, local stdio:  ${await stream(generator, Number(readFileSync(generatorPid, "utf8")), true)}`)
await generator.close()
console.log(`scripts, in-process:          ${await stream(local)}`)
console.log(`scripts, local stdio:         ${await stream(stdio, Number(readFileSync(pidFile, "utf8")))}`)

await stdio.close()
await local.close()
rmSync(dir, { recursive: true, force: true })
