// What a malicious far side (`--executor CMD`, an `--ssh` host's `clanka`) can make this side
// print or do. The far side is a fake executor that speaks the protocol (hostile-executor.ts).
import { expect, test } from "bun:test"
import { join } from "node:path"
import { BUN, clanka } from "../support/cli.ts"

const HOSTILE = join(import.meta.dir, "../support/hostile-executor.ts")
const executor = `${BUN} ${HOSTILE}`
const ESC = "\x1b"

function hostile(config: object) {
  return { env: { HOSTILE: JSON.stringify(config) } }
}

test("escape sequences the far side sends reach the terminal only in caret notation", async () => {
  const result = await clanka(
    ["exec", "--executor", executor, "-e", "1"],
    hostile({
      stderr: `clanka search: ${ESC}]0;PWNED\x07 indexing\n`,
      outputs: [{ _tag: "TaskComplete", summary: `done ${ESC}[2J` }],
      result: { ok: false, error: `bad ${ESC}]0;T\x07` },
    }),
  )
  expect(result.code).toBe(1)
  expect(result.stderr).toBe("clanka search: ^[]0;PWNED^G indexing\ntaskComplete: done ^[[2J\nclanka: the script failed: bad ^[]0;T^G\n")
})

test("a local script's own error and taskComplete lines show control characters in caret notation", async () => {
  const result = await clanka(["exec", "--sandbox", "off", "-e", 'await taskComplete("a\\x1b[2Jb"); throw new Error("c\\x07d")'])
  expect(result.stderr).toBe("taskComplete: a^[[2Jb\nclanka: the script failed: Error: c^Gd (line 1)\n")
})
