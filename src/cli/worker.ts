import { defineCommand, type ArgsDef } from "citty"
import { ExitCode, UsageError } from "../errors.ts"
import { agentArgs, agentFlags, countFlag, executorArgs, runFlags } from "../batch/run-flags.ts"
import { catchInterrupts } from "./interrupt.ts"

export default defineCommand({
  meta: { name: "worker", description: "Run the tasks of a shared queue (clanka batch --queue) on this machine until stopped" },
  args: {
    queue: { type: "string", description: "the queue to take tasks from", valueHint: "redis://HOST:PORT/NAME" },
    concurrency: { type: "string", description: "tasks running at once on this machine (default 4)", valueHint: "N" },
    "rate-limit": { type: "string", description: "model requests per minute for all the queue's workers together (give every worker the same)", valueHint: "N" },
    ...agentArgs,
    ...(executorArgs as unknown as ArgsDef),
  },
  async run({ args }): Promise<number> {
    if (args.queue === undefined) throw new UsageError("clanka worker needs --queue redis://HOST:PORT/NAME")
    const concurrency = countFlag("--concurrency", args.concurrency, 1, 4)
    const rateLimit = args["rate-limit"] === undefined ? undefined : countFlag("--rate-limit", args["rate-limit"], 1, 1)
    const flags = runFlags(args, agentFlags(args))
    const { parseQueueUrl } = await import("../batch/queue/connection.ts")
    parseQueueUrl(args.queue)
    const { runWorker } = await import("../batch/queue/worker.ts")
    const interrupt = catchInterrupts()
    try {
      await runWorker({
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
    return interrupt.signal.aborted ? ExitCode.interrupted : ExitCode.ok
  },
})
