// readFile and readImage on what is not a regular file, as a script might meet one (or a hostile
// script might leave one): a FIFO must not hang the call waiting for a writer (each holds one of
// the executor's few I/O threads), a device must not be read without end. Through the real CLI.
import { expect, test } from "bun:test"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { clanka } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

const directory = temporaryDirectory("clanka-special-")
execFileSync("mkfifo", [join(directory, "pipe")])

test("readFile and readImage refuse a FIFO and a device at once, with one line", async () => {
  const calls = ['readFile({ path: "pipe" })', 'readImage({ path: "pipe" })', 'readFile({ path: "/dev/zero" })', 'readImage({ path: "/dev/zero" })']
  const script = calls.map((call) => `console.log(await ${call}.then(() => "READ", (error) => error.message))`).join("\n")
  const result = await clanka(["exec", "--sandbox", "off", "-C", directory, "-e", script], { timeoutMs: 15_000 })
  expect(result).toEqual({
    code: 0,
    stdout: [
      "readFile: pipe is not a regular file (a FIFO, socket or device); use bash to read it",
      "readImage: pipe is not a regular file",
      "readFile: /dev/zero is not a regular file (a FIFO, socket or device); use bash to read it",
      "readImage: /dev/zero is not a regular file",
      "",
    ].join("\n"),
    stderr: "",
  })
})

// procfs files call themselves regular and of size 0, yet /proc/self/pagemap reads on for
// gigabytes: readImage took them whole (the script was stopped at the executor's memory cap after
// ~20 s), and /proc/self/mem failed with "EIO: i/o error, read", naming no file.
test("readImage reads no more of a file than an image may hold, and a read error names the file", async () => {
  const calls = ['readImage({ path: "/proc/self/pagemap" })', 'readImage({ path: "/proc/self/mem" })']
  const script = calls.map((call) => `console.log(await ${call}.then(() => "READ", (error) => error.message))`).join("\n")
  const started = performance.now()
  const result = await clanka(["exec", "--sandbox", "off", "-C", directory, "-e", script], { timeoutMs: 15_000, env: { CLANKA_SCRIPT_MEMORY_MB: "1024" } })
  expect(result).toEqual({
    code: 0,
    stdout: ["readImage: /proc/self/pagemap is more than 20 MiB; the model takes images up to 20 MiB", "readImage: /proc/self/mem cannot be read: EIO", ""].join("\n"),
    stderr: "",
  })
  expect(performance.now() - started).toBeLessThan(10_000)
})
