import { resolve } from "node:path"
import { statSync } from "node:fs"
import { defineCommand } from "citty"
import { ExitCode, UsageError } from "../errors.ts"

export default defineCommand({
  meta: {
    name: "executor",
    description: "Serve the executor protocol (JSON-RPC, one message per line) on stdin/stdout.",
  },
  args: {
    directory: {
      type: "string",
      alias: "C",
      description: "Directory the tools work in (default: the current directory)",
    },
  },
  async run({ args }) {
    const directory = resolve(args.directory ?? ".")
    let isDirectory = false
    try {
      isDirectory = statSync(directory).isDirectory()
    } catch {
      // reported below
    }
    if (!isDirectory) throw new UsageError(`executor directory ${directory} does not exist; pass an existing directory with -C`)
    const [{ LocalExecutor }, { serveExecutor }] = await Promise.all([
      import("../executor/local.ts"),
      import("../protocol/server.ts"),
    ])
    const executor = new LocalExecutor({ directory })
    // Asked to stop: the same as the agent going away, so what the scripts started dies too.
    let stopping = false
    for (const signal of ["SIGTERM", "SIGHUP"] as const) {
      process.once(signal, () => {
        stopping = true
        process.stdin.destroy()
      })
    }
    await serveExecutor(executor, process.stdin, process.stdout, {
      log: (line) => stopping || process.stderr.write(`clanka executor: ${line}\n`),
    })
    // Whatever a tool left behind must not keep the process alive once the agent is gone.
    setTimeout(() => process.exit(ExitCode.ok), 1000).unref()
    return ExitCode.ok
  },
})
