/**
 * An executor that is still starting (`clanka run`'s local child): calls wait for it, and what it
 * will announce for the system prompt is known before it answers, so the agent's first model
 * request goes out while it starts.
 */
import type { AgentCall, Capabilities, CapabilitiesRequest, ExecuteOptions, Executor, PromptFacts } from "../contract.ts"
import { CancelledError } from "../errors.ts"

export class StartingExecutor implements Executor {
  /** Why it could not start, once that is known. */
  failure: unknown

  constructor(
    readonly ready: Promise<Executor>,
    private readonly expected: () => Promise<PromptFacts | undefined>,
    /** Settles once its process exists (or its start failed): work begun then overlaps its start. */
    readonly spawned: Promise<void> = ready.then(
      () => {},
      () => {},
    ),
  ) {
    ready.catch((error) => (this.failure = error))
  }

  /** What it will announce for the system prompt, before it has answered. */
  async expectedPrompt(): Promise<PromptFacts | undefined> {
    return this.expected()
  }

  async capabilities(request?: CapabilitiesRequest): Promise<Capabilities> {
    return (await this.ready).capabilities(request)
  }

  async *execute(options: ExecuteOptions): AsyncGenerator<string> {
    const executor = await untilReady(this.ready, options.signal)
    yield* executor.execute(options)
  }

  async executeUnsafe(tool: string, params: unknown, options?: { onAgentCall?: AgentCall }): Promise<unknown> {
    return (await this.ready).executeUnsafe(tool, params, options)
  }

  async close(): Promise<void> {
    const executor = await this.ready.catch(() => undefined)
    await executor?.close()
  }
}

/** The started executor, unless `signal` cancels the wait first. */
function untilReady(ready: Promise<Executor>, signal: AbortSignal | undefined): Promise<Executor> {
  if (!signal) return ready
  if (signal.aborted) return Promise.reject(new CancelledError())
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new CancelledError())
    signal.addEventListener("abort", onAbort, { once: true })
    ready.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort))
  })
}
