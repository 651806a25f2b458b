#!/usr/bin/env bun
// The fixed part of the first request: the system prompt and the execute tool's schema, without
// the instructions files, the skills and the user's prompt (bounded at 6,500 characters by
// test/agent/system-prompt.test.ts), in a git repository and outside one; and what gathering the
// executor's context (AGENTS.md chain, skills, environment facts) costs at each capabilities request.
// Usage: bun scripts/bench-prompt.ts
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildSystemPrompt } from "../src/agent/system-prompt.ts"
import { EXECUTE_TOOL } from "../src/contract.ts"
import { gatherContext } from "../src/executor/context.ts"
import { LocalExecutor } from "../src/executor/local.ts"
import { median, percentile } from "./stats.ts"

const LIMIT = 6_500
const root = join(import.meta.dir, "..")

async function fixedPart(directory: string): Promise<{ system: number; tool: number; environment: number }> {
  const executor = new LocalExecutor({ directory, policy: { mode: "workspace-write", network: false, writable: [] } })
  try {
    const caps = await executor.capabilities()
    const system = buildSystemPrompt({ ...caps, instructionsFiles: [], agentsMd: null, skills: [] })
    const environment = system.slice(system.indexOf("\n\nEnvironment:"))
    return { system: system.length, tool: JSON.stringify(EXECUTE_TOOL).length, environment: environment.length }
  } finally {
    await executor.close()
  }
}

const repo = mkdtempSync(join(tmpdir(), "clanka-bench-prompt-"))
const plain = mkdtempSync(join(tmpdir(), "clanka-bench-prompt-plain-"))
try {
  spawnSync("git", ["init", "-q", "-b", "main"], { cwd: repo })
  writeFileSync(join(repo, "changed.txt"), "x\n")
  for (const [label, directory] of [["in a git repository", repo], ["outside a repository", plain]] as const) {
    const part = await fixedPart(directory)
    const total = part.system + part.tool
    console.log(`fixed part ${label}: ${total} characters (system prompt ${part.system}, of it the environment section ${part.environment}; tool schema ${part.tool}); limit ${LIMIT}, ${LIMIT - total} to spare`)
  }

  // Context gathering in this repository (a real one, with files changed or not), warm caches.
  for (let i = 0; i < 3; i++) await gatherContext(root)
  const times: number[] = []
  for (let i = 0; i < 30; i++) {
    const started = performance.now()
    await gatherContext(root)
    times.push(performance.now() - started)
  }
  console.log(`context gathering in this repository: p50 ${median(times).toFixed(1)} ms, p90 ${percentile(times, 0.9).toFixed(1)} ms (30 runs)`)
} finally {
  rmSync(repo, { recursive: true, force: true })
  rmSync(plain, { recursive: true, force: true })
}
