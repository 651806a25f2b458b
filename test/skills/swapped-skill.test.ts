// A user's skill folder linked from a project is the scripts' to change while the agent reads it
// (answering skill(name) on the host): a SKILL.md swapped for a FIFO between the check that it is
// a file and the read must not hold the agent's read waiting for a writer (each such wait keeps
// one of the few threads the agent's file I/O runs on, for good).
import { afterAll, expect, test } from "bun:test"
import { execFileSync, spawn } from "node:child_process"
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { answerUserSkill } from "../../src/skills/user.ts"

// Removed by this file's own afterAll once the swapper is gone: removed while it still ran, it
// could make an entry again after the removal.
const base = mkdtempSync(join(tmpdir(), "clanka-swapped-skill-"))
const folder = join(base, "skills", "mine")
mkdirSync(folder, { recursive: true })
const fifo = join(base, "fifo")
execFileSync("mkfifo", [fifo])
writeFileSync(join(base, "skill.md"), "---\nname: mine\ndescription: Being written.\n---\nbody\n")
writeFileSync(join(folder, "SKILL.md"), "---\nname: mine\ndescription: Being written.\n---\nbody\n")
// SKILL.md is the file, then the FIFO, then the file again, on and on.
const swap = `cd ${folder} && while :; do ln -f ${fifo} a && mv -T a SKILL.md; cp ${join(base, "skill.md")} b && mv -T b SKILL.md; done`
// In a process group of its own: the ln, cp or mv it is running goes with it, rather than
// writing into the folder while the test's temporary directory is removed.
const swapper = spawn("sh", ["-c", swap], { stdio: "ignore", detached: true })
const swapperGone = new Promise((resolve) => swapper.once("exit", resolve))

afterAll(async () => {
  process.kill(-swapper.pid!, "SIGKILL")
  await swapperGone
  // Let any reader still waiting on the FIFO go: a writer comes and leaves.
  for (let i = 0; i < 8; i++) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
    } catch {
      break
    }
  }
  rmSync(base, { recursive: true, force: true })
})

test("a SKILL.md swapped for a FIFO mid-read never leaves the agent's read waiting", async () => {
  let hung = 0
  let answered = 0
  const until = performance.now() + 8_000
  while (performance.now() < until && hung === 0) {
    const answer = answerUserSkill(base, { name: "mine" }).then(
      () => "answered",
      () => "answered",
    )
    const outcome = await Promise.race([answer, Bun.sleep(1_000).then(() => "hung")])
    if (outcome === "hung") hung++
    else answered++
  }
  expect({ hung, answered: answered > 0 }).toEqual({ hung: 0, answered: true })
}, 60_000)
