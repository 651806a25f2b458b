// `bun old-executor.ts DIR`: `clanka executor -C DIR` as an executor from before trace contexts
// sees the protocol: the `trace` field of execute requests never reaches it (an older executor
// ignores fields it does not know, so it never sends spans back).
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { BUN, MAIN } from "./cli.ts"

const child = spawn(BUN, [MAIN, "executor", "-C", process.argv[2] ?? "."], { stdio: ["pipe", "inherit", "inherit"] })
const lines = createInterface({ input: process.stdin })
lines.on("line", (line) => {
  try {
    const message = JSON.parse(line)
    if (message?.method === "execute" && message.params) delete message.params.trace
    child.stdin.write(`${JSON.stringify(message)}\n`)
  } catch {
    child.stdin.write(`${line}\n`)
  }
})
lines.on("close", () => child.stdin.end())
child.on("exit", (code) => process.exit(code ?? 1))
