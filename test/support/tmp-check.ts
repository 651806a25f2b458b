// Preloaded by bun test (bunfig.toml): the run gets a TMPDIR of its own, inherited by every
// clanka and executor it starts, and fails if anything is left in it at the end — a test suite
// that litters /tmp on every run is a bug like any other.
import { afterAll } from "bun:test"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

// Search indexes of every clanka the tests start go here, never into ~/.cache.
const runCache = mkdtempSync(join(tmpdir(), "clanka-test-cache-"))
process.env.XDG_CACHE_HOME = runCache
const runTmp = mkdtempSync(join(tmpdir(), "clanka-test-run-"))
// Every `clanka run` saves a session: the run's own state directory keeps tests out of the real
// ~/.local/state (tests of the session store set CLANKA_HOME or XDG_STATE_HOME themselves).
const stateHome = mkdtempSync(join(tmpdir(), "clanka-test-state-"))
process.env.TMPDIR = runTmp
process.env.XDG_STATE_HOME = stateHome
delete process.env.CLANKA_HOME

// In a preload file, afterAll runs once, after every test file.
afterAll(() => {
  const left = readdirSync(runTmp)
  rmSync(runTmp, { recursive: true, force: true })
  rmSync(runCache, { recursive: true, force: true })
  rmSync(stateHome, { recursive: true, force: true })
  if (left.length > 0) throw new Error(`the test run left ${left.length} entries in its TMPDIR: ${left.join(", ")}`)
})
