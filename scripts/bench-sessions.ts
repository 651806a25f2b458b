#!/usr/bin/env bun
// Session figures: the cost of saving one event (a synchronous append of one line), how long
// `clanka run --continue` of a 1,000-turn session takes to send its first request (against a
// fresh run), and `clanka sessions` over 1,000 saved sessions.
// Usage: bun scripts/bench-sessions.ts   (uses dist/clanka when present — `npm run build` — else source)
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AgentEvent } from "../src/agent/events.ts"
import { SessionRecorder } from "../src/session/recorder.ts"
import { historyOf } from "../src/session/history.ts"
import { listSessions } from "../src/session/store.ts"
import { parseTranscript } from "../src/session/transcript.ts"
import { readdirSync, readFileSync } from "node:fs"
import { startFakeModel, type FakeTurn } from "../test/support/fake-model.ts"
import { median, percentile } from "./stats.ts"

const root = join(import.meta.dir, "..")
const bin = join(root, "dist/clanka")
const command = existsSync(bin) ? [bin] : [process.execPath, join(root, "src/cli/main.ts")]
const fmt = (n: number) => n.toFixed(3)
/** CPU time (user + system) a finished child used, in ms: steadier than wall time on a busy machine. */
const cpuMs = (child: { resourceUsage(): { cpuTime: { user: bigint | number; system: bigint | number } } | undefined }) => {
  const usage = child.resourceUsage()
  return usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1000 : NaN
}
const MODEL = "anthropic/claude-sonnet-4-5"

function start(directory: string, prompt: string): AgentEvent {
  return {
    _tag: "AgentStart", id: "bench", prompt, provider: "anthropic", model: "claude-sonnet-4-5", sessionId: "", resumedFrom: null,
    directory, tools: ["readFile"], sandbox: { mode: "off", network: true },
  }
}

/** Writes one session of `turns` turns as a run would: the same lines, through the recorder. */
function writeSession(home: string, directory: string, turns: number, prompt: string): string {
  const recorder = SessionRecorder.create({ env: { CLANKA_HOME: home }, cwd: directory, executor: { kind: "local" }, model: MODEL })
  recorder.event(start(directory, prompt))
  recorder.message({ role: "user", content: prompt })
  for (let turn = 1; turn <= turns; turn++) {
    const id = `toolu_${turn}`
    const script = `const text = await readFile({ path: "src/file${turn}.ts" })\nconsole.log(text.split("\\n").length)`
    const output = `${"line of output ".repeat(2)}${turn}\n`
    for (const event of [
      { _tag: "ReasoningStart" }, { _tag: "ReasoningDelta", delta: `Looking at file ${turn} next.` }, { _tag: "ReasoningEnd" },
      { _tag: "ScriptStart" }, { _tag: "ScriptDelta", delta: script }, { _tag: "ScriptEnd" },
      { _tag: "Usage", contextTokens: 1000 * turn, contextWindow: 200_000, inputTokens: 100 * turn, outputTokens: 50 * turn, cacheReadTokens: 900 * turn, cacheWriteTokens: 100, costUsd: 0.001 * turn, durationMs: 900 },
    ] as AgentEvent[]) recorder.event(event)
    recorder.message({ role: "assistant", content: [{ type: "text", text: `Looking at file ${turn} next.` }, { type: "tool-call", id, name: "execute", input: { script } }] })
    recorder.output(id, output)
    recorder.event({ _tag: "ScriptOutput", output })
    recorder.message({ role: "tool", toolCallId: id, content: output })
  }
  recorder.event({ _tag: "AgentFinished", summary: "done", durationMs: 1000, turns, usage: { contextTokens: 1, contextWindow: 200_000, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.5 } })
  recorder.close()
  return recorder.id
}

// Sessions are written by a child process: one whose writer is still alive would list as running.
if (process.argv[2] === "--generate") {
  const [home, directory, count, turns] = process.argv.slice(3)
  for (let i = 0; i < Number(count); i++) writeSession(home!, directory!, Number(turns), `task number ${i}`)
  process.exit(0)
}
const scratch = mkdtempSync(join(tmpdir(), "clanka-bench-sessions-"))
async function generate(home: string, directory: string, count: number, turns: number): Promise<void> {
  const child = Bun.spawn([process.execPath, import.meta.path, "--generate", home, directory, String(count), String(turns)], { stdout: "inherit", stderr: "inherit" })
  if ((await child.exited) !== 0) throw new Error("generating sessions failed")
}

// 1. One event saved: the recorder's synchronous append, measured call by call.
{
  const home = join(scratch, "events")
  const recorder = SessionRecorder.create({ env: { CLANKA_HOME: home }, cwd: scratch, executor: { kind: "local" }, model: MODEL })
  recorder.event(start(scratch, "bench"))
  const delta: AgentEvent = { _tag: "ReasoningDelta", delta: "a streamed piece of the model's text, " }
  const output: AgentEvent = { _tag: "ScriptOutput", output: "x".repeat(2000) + "\n" }
  const small: number[] = []
  const large: number[] = []
  for (let i = 0; i < 22_000; i++) {
    const event = i % 10 === 9 ? output : delta
    const t = performance.now()
    recorder.event(event)
    const ms = performance.now() - t
    if (i < 2_000) continue // warm-up
    ;(event === output ? large : small).push(ms)
  }
  recorder.close()
  console.log(`per-event transcript overhead: p50 ${fmt(median(small))} ms (p90 ${fmt(percentile(small, 0.9))} ms) for a ReasoningDelta; p50 ${fmt(median(large))} ms for a 2 KB ScriptOutput`)
}

// 2. --continue of a 1,000-turn session to its first request, against a new session, interleaved.
{
  const home = join(scratch, "continue")
  const directory = join(scratch, "project")
  mkdirSync(directory)
  await generate(home, directory, 1, 1000)
  let arrived = 0
  const done = (): FakeTurn => {
    arrived = performance.now()
    return { blocks: [{ type: "execute", script: 'await taskComplete("ok")' }] }
  }
  const runs = 12
  const server = await startFakeModel("anthropic", Array.from({ length: 3 * (runs + 2) }, () => done))
  const resumed: number[] = []
  const fresh: number[] = []
  const saved: number[] = []
  const resumedCpu: number[] = []
  const freshCpu: number[] = []
  const savedCpu: number[] = []
  let bytes = 0
  // Three kinds interleaved: --continue of the long session, a new run saved (to another
  // directory of sessions), a new run with --no-session.
  for (let i = 0; i < 3 * (runs + 2); i++) {
    const kind = i % 3
    const cont = kind === 0
    const started = performance.now()
    const flags = kind === 0 ? ["--continue"] : kind === 1 ? [] : ["--no-session"]
    const child = Bun.spawn([...command, "run", ...flags, "--sandbox", "off", "-o", "text", "-m", MODEL, "-C", directory, "go on"], {
      env: { ...process.env, ...server.env, CLANKA_HOME: kind === 1 ? join(scratch, "fresh") : home },
      stdin: "ignore", stdout: "pipe", stderr: "pipe",
    })
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
    if (code !== 0 || out !== "ok\n") throw new Error(`clanka run failed (exit ${code}): ${out}${err}`)
    if (cont) bytes = JSON.stringify(server.requests.at(-1)!.body).length
    if (i < 6) continue // warm-up
    ;[resumed, saved, fresh][kind]!.push(arrived - started)
    ;[resumedCpu, savedCpu, freshCpu][kind]!.push(cpuMs(child))
  }
  await server.close()
  // The part that is the session's own: reading the transcript and rebuilding the history.
  const file = join(home, "sessions", readdirSync(join(home, "sessions"))[0]!)
  const rebuild: number[] = []
  for (let i = 0; i < 20; i++) {
    const t = performance.now()
    historyOf(parseTranscript(readFileSync(file, "utf8"), ["message", "compaction", "output"]))
    if (i >= 3) rebuild.push(performance.now() - t)
  }
  console.log(`history of the 1,000-turn transcript (${(readFileSync(file).length / 1024 / 1024).toFixed(1)} MiB) rebuilt in-process: ${median(rebuild).toFixed(1)} ms`)
  console.log(`--continue of a 1,000-turn session, start to first request: ${median(resumed).toFixed(1)} ms (p90 ${percentile(resumed, 0.9).toFixed(1)} ms); a new run ${median(saved).toFixed(1)} ms saved, ${median(fresh).toFixed(1)} ms with --no-session; the request body: ${(bytes / 1024).toFixed(0)} KiB`)
  console.log(`  agent CPU time of the whole run: --continue ${median(resumedCpu).toFixed(1)} ms, new saved ${median(savedCpu).toFixed(1)} ms, --no-session ${median(freshCpu).toFixed(1)} ms`)
}

// 3. `clanka sessions` over 1,000 sessions of 30 turns each.
{
  const home = join(scratch, "list")
  const directory = join(scratch, "project")
  await generate(home, directory, 1000, 30)
  const walls: number[] = []
  const versions: number[] = []
  const wallsCpu: number[] = []
  const versionsCpu: number[] = []
  for (let i = 0; i < 15; i++) {
    for (const args of [["sessions", "--all"], ["--version"]]) {
      const started = performance.now()
      const child = Bun.spawn([...command, ...args], { env: { ...process.env, CLANKA_HOME: home }, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
      const out = await new Response(child.stdout).text()
      if ((await child.exited) !== 0) throw new Error("clanka sessions failed")
      if (args[0] === "sessions" && out.trimEnd().split("\n").length !== 1001) throw new Error(`listed ${out.split("\n").length - 2} sessions`)
      if (i < 3) continue
      ;(args[0] === "sessions" ? walls : versions).push(performance.now() - started)
      ;(args[0] === "sessions" ? wallsCpu : versionsCpu).push(cpuMs(child))
    }
  }
  const listing: number[] = []
  for (let i = 0; i < 15; i++) {
    const t = performance.now()
    listSessions({ CLANKA_HOME: home })
    if (i >= 3) listing.push(performance.now() - t)
  }
  console.log(`listing 1,000 sessions in-process: ${median(listing).toFixed(1)} ms`)
  console.log(`clanka sessions --all over 1,000 sessions (30 turns each): ${median(walls).toFixed(1)} ms (p90 ${percentile(walls, 0.9).toFixed(1)} ms); clanka --version: ${median(versions).toFixed(1)} ms; CPU time ${median(wallsCpu).toFixed(1)} ms against ${median(versionsCpu).toFixed(1)} ms`)
}

rmSync(scratch, { recursive: true, force: true })
