import type { AgentEvent } from "../agent/events.ts"
import type { Executor } from "../contract.ts"
import { StartingExecutor } from "../executor/starting.ts"
import { ExitCode } from "../errors.ts"
import { visible } from "../output/visible.ts"
import type { Interrupt } from "./interrupt.ts"
import { stderr } from "./stdio.ts"

/**
 * Prints one run's events and returns its exit code; an AgentError is also one line on stderr,
 * except when the run stopped because the reader of stdout left (`clanka run … | head -1`): that
 * ends quietly, as exec does.
 */
export async function consumeEvents(
  events: AsyncIterable<AgentEvent>,
  print: (event: AgentEvent) => void,
  interrupt: Interrupt,
  executor?: Executor,
): Promise<number> {
  let code: number = ExitCode.failed
  for await (const event of events) {
    // An executor that could not start is reported as it was before the agent existed.
    const failure = executor instanceof StartingExecutor ? executor.failure : undefined
    if (event._tag === "AgentError" && failure !== undefined) throw failure
    print(event)
    if (event._tag === "AgentFinished") code = ExitCode.ok
    if (event._tag === "AgentError") {
      code = event.exitCode
      if (!(code === ExitCode.interrupted && interrupt.readerLeft)) stderr.write(`clanka: ${visible(event.message)}\n`)
    }
  }
  return code
}
