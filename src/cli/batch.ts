import { defineCommand } from "./define-command.ts"
import { readFile } from "node:fs/promises"
import { ExitCode, UsageError } from "../errors.ts"
import { Progress } from "../batch/progress.ts"
import { agentFlags, countFlag, executorFlagGiven, runFlags } from "../batch/run-flags.ts"
import { dollarsFlag } from "./dollars.ts"
import { resultLine, skipDone } from "../batch/results.ts"
import type { TaskResult } from "../batch/run-task.ts"
import { parseTasks, type Task } from "../batch/tasks.ts"
import { batch as spec } from "./commands.ts"
import { catchInterrupts } from "./interrupt.ts"

export default defineCommand({
  ...spec,
  async run({ args }): Promise<number> {
    const concurrency = countFlag("--concurrency", args.concurrency, 1, 4)
    const retries = countFlag("--retries", args.retries, 0, 2)
    const capUsd = dollarsFlag("--max-budget-usd", args["max-budget-usd"])
    const agent = agentFlags(args)
    const source = args.tasks === "-" ? "stdin" : args.tasks
    let tasks = parseTasks(await readTasks(args.tasks), source)
    await checkModels(tasks, source)
    const done = args["skip-done"] === undefined ? undefined : await skipDone(args["skip-done"])

    if (args.queue !== undefined) {
      // The workers' machines decide where and how scripts run, not the one that enqueues.
      const given = executorFlagGiven(args)
      if (given) throw new UsageError(`${given} applies to the machines that run the tasks: give it to clanka worker, not to clanka batch --queue`)
      if (args.concurrency !== undefined) throw new UsageError("--concurrency with --queue belongs to each clanka worker")
    }
    const flags = args.queue === undefined ? runFlags(args, agent) : undefined

    const skipped = done ? tasks.filter((task) => done.has(String(task.id))) : []
    if (done) tasks = tasks.filter((task) => !done.has(String(task.id)))
    const progress = new Progress(tasks.length)
    progress.skipped(skipped.length, args["skip-done"]!)
    const results: TaskResult[] = []
    const print = (result: TaskResult) => {
      results.push(result)
      process.stdout.write(resultLine(result) + "\n")
    }
    const interrupt = catchInterrupts()
    let clean = true
    try {
      if (tasks.length > 0) {
        if (args.queue !== undefined) {
          const { enqueueAndCollect } = await import("../batch/queue/coordinator.ts")
          clean = await enqueueAndCollect({ url: args.queue, tasks, agent, retries, ...(capUsd === undefined ? {} : { capUsd }), signal: interrupt.signal, print, progress })
        } else {
          const { runLocalBatch } = await import("../batch/local.ts")
          await runLocalBatch({ tasks, flags: flags!, concurrency, retries, ...(capUsd === undefined ? {} : { capUsd }), signal: interrupt.signal, print, progress })
        }
      }
      progress.end(interrupt.signal.aborted)
    } finally {
      interrupt.dispose()
    }
    const code = interrupt.signal.aborted ? ExitCode.interrupted : results.every((result) => result.exitCode === ExitCode.ok) ? ExitCode.ok : ExitCode.failed
    if (!clean) {
      // Redis went away: its connections would keep retrying, and the process alive.
      const { exitNow } = await import("../batch/queue/redis.ts")
      await exitNow(code)
    }
    return code
  },
})

/** A task's model spec is checked with the file: a typo is the line's mistake, found before any task runs. */
async function checkModels(tasks: Task[], source: string): Promise<void> {
  if (!tasks.some((task) => task.model !== undefined)) return
  const { parseModelSpec } = await import("../providers/resolve.ts")
  for (const task of tasks) {
    if (task.model === undefined) continue
    try {
      parseModelSpec(task.model)
    } catch (error) {
      throw new UsageError(`${source}:${task.line}: model: ${(error as Error).message}`)
    }
  }
}

async function readTasks(file: string): Promise<string> {
  if (file === "-") return await new Response(Bun.stdin.stream()).text()
  try {
    return await readFile(file, "utf8")
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}
