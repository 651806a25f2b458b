// The user's own AGENTS.md ($XDG_CONFIG_HOME/clanka/AGENTS.md) is read on the agent's side: a huge
// one (a link into a project a script writes, truncate -s 3G) is read only as far as the prompt
// takes it, and cut, rather than whole into the agent's memory (3 GiB failed with ENOMEM, and the
// user's instructions were gone).
import { expect, test } from "bun:test"
import { truncateSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { loadUserContext } from "../../src/agent/user-context.ts"
import { INSTRUCTIONS_MAX_CHARS } from "../../src/executor/agents-md.ts"
import { temporaryDirectory } from "../support/temp.ts"

test("a huge user AGENTS.md is cut, not read whole", async () => {
  const dir = temporaryDirectory("clanka-user-context-")
  writeFileSync(join(dir, "AGENTS.md"), "Answer in French-3390.\n")
  truncateSync(join(dir, "AGENTS.md"), 3 * 1024 ** 3)
  const context = await loadUserContext(dir)
  expect(context?.warnings).toEqual([])
  expect(context?.instructions?.text.startsWith("Answer in French-3390.\n")).toBe(true)
  expect(context?.instructions?.text.endsWith(`\n[cut at ${INSTRUCTIONS_MAX_CHARS} characters]`)).toBe(true)
})
