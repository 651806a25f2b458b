import * as v from "valibot"
import { SubagentOptionsSchema } from "../contract.ts"
import { defineTool } from "./tool.ts"

/** The longest timer (2^31 - 1 ms, about 24.8 days): a longer one would fire after 1 ms. */
const MAX_SLEEP_MS = 2 ** 31 - 1
const sleepRange = (issue: { received: string }) => `expected milliseconds from 0 to ${MAX_SLEEP_MS}, got ${issue.received}`

/** Tools that steer the run itself rather than touch the machine. */
export const controlTools = [
  defineTool({
    name: "taskComplete",
    keepsIndex: true,
    description: "Finish the task with a summary for the user; the run ends after this script.",
    params: v.string(),
    paramName: "output",
    result: v.void(),
    run: async (summary, ctx) => ctx.onTaskComplete(summary),
  }),
  defineTool({
    name: "delegate",
    description: "Run a sub-agent with fresh history on a self-contained task; returns its summary.",
    params: v.tuple([v.string(), v.optional(SubagentOptionsSchema)]),
    argNames: ["task", "options"],
    // The options are declared by the agent when the run has several hosts (hosts.ts).
    declaredArgs: 1,
    result: v.string(),
    run: async ([task, options], ctx) => ctx.onSubagent(task, options),
  }),
  defineTool({
    name: "hosts",
    description: "The hosts of this run (several --ssh): each one's name and directory, and whether this script runs there.",
    params: v.void(),
    result: v.array(v.object({ name: v.string(), directory: v.string(), current: v.boolean() })),
    hidden: true,
    run: async (_, ctx) => ctx.agentCall("hosts", {}) as Promise<{ name: string; directory: string; current: boolean }[]>,
  }),
  defineTool({
    name: "sleep",
    keepsIndex: true,
    description: "Wait for the given number of milliseconds.",
    params: v.pipe(v.number(sleepRange), v.minValue(0, sleepRange), v.maxValue(MAX_SLEEP_MS, sleepRange)),
    paramName: "ms",
    result: v.void(),
    run: (ms, ctx) =>
      new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          clearTimeout(timer)
          reject(ctx.signal.reason)
        }
        const timer = setTimeout(() => {
          ctx.signal.removeEventListener("abort", onAbort)
          resolve()
        }, ms)
        if (ctx.signal.aborted) return onAbort()
        ctx.signal.addEventListener("abort", onAbort, { once: true })
      }),
  }),
]
