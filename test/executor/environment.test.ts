// The environment facts must not stall the start: a git that takes too long is given up on, and
// the branch still comes from HEAD.
import { afterAll, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { LocalExecutor } from "../../src/executor/local.ts"
import { GIT_STATUS_TIMEOUT_MS } from "../../src/executor/environment.ts"
import { temporaryDirectory } from "../support/temp.ts"

const base = temporaryDirectory("clanka-environment-")
const path = process.env.PATH

afterAll(() => {
  process.env.PATH = path
})

test("a git status slower than its time limit: the capabilities come anyway, with the branch and no count", async () => {
  const repo = join(base, "repo")
  mkdirSync(repo)
  spawnSync("git", ["init", "-q", "-b", "slow-branch"], { cwd: repo })
  const bin = join(base, "bin")
  mkdirSync(bin)
  writeFileSync(join(bin, "git"), "#!/bin/sh\nexec sleep 30\n")
  chmodSync(join(bin, "git"), 0o755)
  process.env.PATH = `${bin}:${path}`
  const executor = new LocalExecutor({ directory: repo })
  try {
    const started = performance.now()
    const caps = await executor.capabilities()
    expect(performance.now() - started).toBeLessThan(GIT_STATUS_TIMEOUT_MS + 2_000)
    expect(caps.environment?.git).toEqual({ root: repo, branch: "slow-branch" })
  } finally {
    process.env.PATH = path
    await executor.close()
  }
})
