import { defineCommand } from "./define-command.ts"
import { ExitCode, UsageError } from "../errors.ts"
import { agentFlags, countFlag, runFlags } from "../batch/run-flags.ts"
import { worker as spec } from "./commands.ts"
import { catchInterrupts } from "./interrupt.ts"

export default defineCommand({
  ...spec,
  async run({ args }): Promise<number> {
    if (args.queue === undefined) throw new UsageError("clanka worker needs --queue redis://HOST:PORT/NAME")
    const concurrency = countFlag("--concurrency", args.concurrency, 1, 4)
    const rateLimit = args["rate-limit"] === undefined ? undefined : countFlag("--rate-limit", args["rate-limit"], 1, 1)
    const flags = runFlags(args, agentFlags(args))
    const { parseQueueUrl } = await import("../batch/queue/connection.ts")
    parseQueueUrl(args.queue)
    const { runWorker } = await import("../batch/queue/worker.ts")
    const interrupt = catchInterrupts()
    let clean: boolean
    try {
      clean = await runWorker({
        url: args.queue,
        flags,
        concurrency,
        ...(rateLimit === undefined ? {} : { rateLimit }),
        signal: interrupt.signal,
        log: (line) => process.stderr.write(`clanka worker: ${line}\n`),
      })
    } finally {
      interrupt.dispose()
    }
    const code = interrupt.signal.aborted ? ExitCode.interrupted : ExitCode.ok
    if (!clean) {
      // Redis went away: its connections would keep retrying, and the process alive.
      const { exitNow } = await import("../batch/queue/redis.ts")
      await exitNow(code)
    }
    return code
  },
})
