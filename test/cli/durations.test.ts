import { expect, test } from "bun:test"
import { clanka } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

// Timers hold at most 2^31 - 1 ms; a longer one fires after 1 ms with a runtime warning. Such
// durations are refused: a flag with exit 2 and one line, sleep() as a rejected tool call.
const directory = temporaryDirectory("clanka-durations-")
const range = (flag: string, value: string) =>
  `clanka: ${flag} takes a number of seconds from 0.001 to 2147483 (about 24 days), got "${value}"\n`

test("exec --timeout beyond 2147483 s, or not a positive number, is exit 2 with one line", async () => {
  for (const value of ["2147484", "1e12", "Infinity", "-5", "0", "NaN", "abc", ""]) {
    const result = await clanka(["exec", "-C", directory, `--timeout=${value}`, "-e", 'console.log("ran")'])
    expect(result).toEqual({ code: 2, stdout: "", stderr: range("--timeout", value) })
  }
})

test("exec --timeout 2147483 (the longest) is taken", async () => {
  expect(await clanka(["exec", "-C", directory, "--timeout", "2147483", "-e", 'console.log("ran")'])).toEqual({
    code: 0,
    stdout: "ran\n",
    stderr: "",
  })
})

test("run --turn-timeout out of range is exit 2 with one line, before any model call", async () => {
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9", CLANKA_MODEL: "anthropic/claude-sonnet-4-5" }
  for (const value of ["1e12", "2147484", "-1", "soon"]) {
    const result = await clanka(["run", "-C", directory, "--turn-timeout", value, "hi"], { env, timeoutMs: 8_000 })
    expect(result).toEqual({ code: 2, stdout: "", stderr: range("--turn-timeout", value) })
  }
})

test("sleep() longer than 2^31 - 1 ms, negative or not a number is a rejected tool call", async () => {
  for (const [ms, got] of [
    ["2 ** 31", "2147483648"],
    ["-1", "-1"],
    ['"5"', '"5"'],
  ]) {
    const script = `console.log("before"); await sleep(${ms}); console.log("after")`
    const result = await clanka(["exec", "-C", directory, "-e", script])
    expect(result).toEqual({
      code: 1,
      stdout: "before\n",
      stderr: `clanka: the script failed: Error: sleep: invalid parameters: expected milliseconds from 0 to 2147483647, got ${got} (line 1)\n`,
    })
  }
})

test("clanka tool sleep with too long a duration exits 2", async () => {
  expect(await clanka(["tool", "-C", directory, "sleep", "2147483648"])).toEqual({
    code: 2,
    stdout: "",
    stderr: "clanka: sleep: invalid parameters: expected milliseconds from 0 to 2147483647, got 2147483648\n",
  })
})
