// The tasks file as editors and other programs write it.
import { expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

const root = temporaryDirectory("clanka-tasks-file-")

test("a tasks file saved with a byte-order mark and CRLF line ends reads as any other", async () => {
  const file = join(root, "windows.jsonl")
  writeFileSync(file, '\uFEFF{"id": "a", "prompt": "x"}\r\n{"id": "b", "promt": "y"}\r\n')
  // The first line is a task; the mistake found is the second line's.
  expect(await clanka(["batch", file])).toEqual({
    code: 2,
    stdout: "",
    stderr: `clanka: ${file}:2: missing prompt\n`,
  })
})
