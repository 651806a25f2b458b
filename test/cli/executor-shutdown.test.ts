// An executor that is told to stop (SIGTERM, SIGHUP) while a script runs is an executor lost
// (exit 3), not the user interrupting (130): only the user's own cancel is 130.
import { expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { BUN, MAIN } from "../support/cli.ts"
import { temporaryDirectory } from "../support/temp.ts"

const directory = temporaryDirectory("clanka-shutdown-")

for (const signal of ["SIGTERM", "SIGHUP"] as const) {
  test(`clanka exec --executor: the executor child gets ${signal} mid-script → exit 3 and one line`, async () => {
    const pidFile = join(directory, `${signal}.pid`)
    const executor = `echo $$ > '${pidFile}'; exec '${BUN}' '${MAIN}' executor -C '${directory}'`
    const child = Bun.spawn([BUN, MAIN, "exec", "--executor", executor, "-e", 'console.log("started"); await bash({ command: "sleep 30" })'], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, NO_COLOR: "1" },
    })
    const reader = child.stdout.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toBe("started\n")
    expect(existsSync(pidFile)).toBe(true)
    process.kill(Number(readFileSync(pidFile, "utf8")), signal)
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()])
    expect(code).toBe(3)
    expect(stderr).toBe(
      `clanka: the executor command (${executor}) was shut down while it was working; check it and run again\n`,
    )
  })
}
