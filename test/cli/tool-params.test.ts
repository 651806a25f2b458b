import { expect, test } from "bun:test"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

// `clanka tool NAME [PARAMS]`: a negative number is PARAMS, not a flag; missing PARAMS says what
// the tool takes; `-` reads PARAMS from stdin, so they can be larger than argv allows.
const dir = temporaryDirectory("clanka-tool-params-")
writeFileSync(join(dir, "a.txt"), "alpha\n")
mkdirSync(join(dir, "sub"))
writeFileSync(join(dir, "sub", "x"), "")

test("a negative number is PARAMS: sleep -5 fails validation, exit 2", async () => {
  const line = "clanka: sleep: invalid parameters: expected milliseconds from 0 to 2147483647, got -5\n"
  expect(await clanka(["tool", "-C", dir, "sleep", "-5"])).toEqual({ code: 2, stdout: "", stderr: line })
  expect(await clanka(["tool", "sleep", "-5", "-C", dir])).toEqual({ code: 2, stdout: "", stderr: line })
})

test("no PARAMS for a tool that needs them is exit 2 naming the tool and what it takes", async () => {
  expect(await clanka(["tool", "-C", dir, "readFile"])).toEqual({
    code: 2,
    stdout: "",
    stderr:
      "clanka: readFile: missing PARAMS: JSON of type { path: string; startLine?: number; endLine?: number } (or - to read them from stdin)\n",
  })
  expect(await clanka(["tool", "-C", dir, "sleep"])).toEqual({
    code: 2,
    stdout: "",
    stderr: "clanka: sleep: missing PARAMS: JSON of type number (or - to read them from stdin)\n",
  })
  // A tool that takes nothing still needs no PARAMS.
  expect(await clanka(["tool", "-C", dir, "listTodos"])).toEqual({ code: 0, stdout: "[]\n", stderr: "" })
})

test("a bare word for a tool that takes an object is exit 2 saying what it takes", async () => {
  expect(await clanka(["tool", "-C", dir, "readFile", "a.txt"])).toEqual({
    code: 2,
    stdout: "",
    stderr: "clanka: readFile: PARAMS must be JSON of type { path: string; startLine?: number; endLine?: number }, got: a.txt\n",
  })
  // A tool whose parameter is one string still takes it bare.
  expect(await clanka(["tool", "-C", dir, "ls", "sub"])).toEqual({ code: 0, stdout: '[\n  "x"\n]\n', stderr: "" })
})

test("- reads PARAMS from stdin: JSON, or the bare string for a tool taking one", async () => {
  expect(await clanka(["tool", "-C", dir, "readFile", "-"], { stdin: '{"path":"a.txt"}\n' })).toEqual({
    code: 0,
    stdout: '"alpha\\n"\n',
    stderr: "",
  })
  expect(await clanka(["tool", "-C", dir, "ls", "-"], { stdin: "sub\n" })).toEqual({ code: 0, stdout: '[\n  "x"\n]\n', stderr: "" })
  expect(await clanka(["tool", "-C", dir, "readFile", "-"], { stdin: "" })).toEqual({
    code: 2,
    stdout: "",
    stderr:
      "clanka: readFile: missing PARAMS: JSON of type { path: string; startLine?: number; endLine?: number } (or - to read them from stdin)\n",
  })
})

test("a writeFile over 2 MB (beyond what argv takes) works through stdin", async () => {
  const content = "0123456789abcdef\n".repeat(160_000) // 2.72 MB
  const result = await clanka(["tool", "-C", dir, "writeFile", "-"], { stdin: JSON.stringify({ path: "big.txt", content }) })
  expect(result).toEqual({ code: 0, stdout: "null\n", stderr: "" })
  expect(readFileSync(join(dir, "big.txt"), "utf8")).toBe(content)
})
