// The instructions files share one budget: the nearest file (the most specific) is kept whole,
// the farther ones are cut, and the user is told which.
import { expect, test } from "bun:test"
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { INSTRUCTIONS_MAX_CHARS, readInstructionsChain } from "../../src/executor/agents-md.ts"
import { temporaryDirectory } from "../support/temp.ts"

test("past the budget the farthest AGENTS.md is cut, the nearest kept whole", async () => {
  const repo = temporaryDirectory("clanka-agents-chain-")
  mkdirSync(join(repo, ".git"))
  mkdirSync(join(repo, "app"))
  writeFileSync(join(repo, "AGENTS.md"), "r".repeat(INSTRUCTIONS_MAX_CHARS))
  writeFileSync(join(repo, "app/AGENTS.md"), "n".repeat(1000))
  const { files, warnings } = await readInstructionsChain(join(repo, "app"))
  expect(files.map((file) => file.path)).toEqual([join(repo, "AGENTS.md"), join(repo, "app/AGENTS.md")])
  expect(files[1]!.text).toBe("n".repeat(1000))
  expect(files[0]!.text).toBe(`${"r".repeat(INSTRUCTIONS_MAX_CHARS - 1000)}\n[cut: the instructions files hold more than ${INSTRUCTIONS_MAX_CHARS} characters]`)
  expect(warnings).toEqual([`../AGENTS.md was cut: the instructions files hold more than ${INSTRUCTIONS_MAX_CHARS} characters`])
})

test("a file in a credential store is not read, also inside the repository (a home that is a git repository)", async () => {
  const home = temporaryDirectory("clanka-agents-home-")
  mkdirSync(join(home, ".git"))
  mkdirSync(join(home, ".ssh"))
  mkdirSync(join(home, "project"))
  writeFileSync(join(home, ".ssh/id_ed25519"), "KEY-4410\n")
  symlinkSync("../.ssh/id_ed25519", join(home, "project/AGENTS.md"))
  const saved = process.env.HOME
  process.env.HOME = home
  try {
    const { files, warnings } = await readInstructionsChain(join(home, "project"))
    expect(files).toEqual([])
    expect(warnings).toEqual([`AGENTS.md is a symlink to ${join(home, ".ssh/id_ed25519")}, a credential store the sandbox hides; not read`])
  } finally {
    process.env.HOME = saved
  }
})

// A script can leave a huge AGENTS.md (truncate -s 3G): only what the budget holds is read, not the
// whole file into the memory of the agent and the executor (before, one of 3 GiB was dropped unread
// with no word, one of 1 GiB took 1 GiB of memory).
test("a huge AGENTS.md is read only as far as the budget, and cut with a warning", async () => {
  const repo = temporaryDirectory("clanka-agents-huge-")
  mkdirSync(join(repo, ".git"))
  writeFileSync(join(repo, "AGENTS.md"), "Use tabs-9931.\n")
  truncateSync(join(repo, "AGENTS.md"), 3 * 1024 ** 3)
  const { files, warnings } = await readInstructionsChain(repo)
  expect(files.length).toBe(1)
  expect(files[0]!.text.startsWith("Use tabs-9931.\n")).toBe(true)
  expect(files[0]!.text.endsWith(`\n[cut: the instructions files hold more than ${INSTRUCTIONS_MAX_CHARS} characters]`)).toBe(true)
  expect(warnings).toEqual([`AGENTS.md was cut: the instructions files hold more than ${INSTRUCTIONS_MAX_CHARS} characters`])
})

test("an AGENTS.md in a credential store that holds the repository is read (the sandbox leaves that store visible)", async () => {
  const home = temporaryDirectory("clanka-agents-store-")
  const config = join(home, ".config/clanka")
  mkdirSync(join(config, ".git"), { recursive: true })
  writeFileSync(join(config, "AGENTS.md"), "Keep the config tidy.\n")
  const saved = process.env.HOME
  process.env.HOME = home
  try {
    const { files, warnings } = await readInstructionsChain(config)
    expect(files).toEqual([{ path: join(config, "AGENTS.md"), text: "Keep the config tidy.\n" }])
    expect(warnings).toEqual([])
  } finally {
    process.env.HOME = saved
  }
})
