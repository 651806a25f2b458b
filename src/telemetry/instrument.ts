/**
 * Spans and metrics of a run, following the OpenTelemetry GenAI semantic conventions, made by
 * wrapping what the agent is given (its models and executors) and what it yields (its events):
 *
 *   invoke_agent clanka                 the run (one per prompt)
 *     chat {model}                      each model request
 *     execute_tool execute              each script, on the host that runs it
 *       execute_tool readFile, …        each tool call, timed on the executor and sent back
 *       execute_tool delegate
 *         invoke_agent clanka-subagent  a sub-agent, under the call that started it
 *
 * Which agent a model request or a script belongs to is known from an AsyncLocalStorage holding
 * the context of the agent (run or sub-agent) whose code is running.
 */
import { AsyncLocalStorage } from "node:async_hooks"
import { type Attributes, type Context, ROOT_CONTEXT, type Span, SpanKind, type SpanContext, SpanStatusCode, trace } from "@opentelemetry/api"
import type { Agent, AgentOptions } from "../agent/agent.ts"
import type { AgentEvent } from "../agent/events.ts"
import type { ExecuteOptions, Executor, ExecutorSpan, SubagentRequest } from "../contract.ts"
import { ExitCode } from "../errors.ts"
import type { Model } from "../providers/model.ts"
import { hrTime, now, tracedModel, usageAttributes } from "./model-spans.ts"
import type { Otel } from "./otel.ts"

/** What the command line knows about where the run's scripts go. */
export interface RunTarget {
  /** local: a child executor in the OS sandbox; ssh: --ssh; command: --executor. */
  executorKind: "local" | "ssh" | "command"
  /** The --ssh host's name (the run's hosts carry their own). */
  host?: string
}

const AGENT = "clanka"
const SUBAGENT = "clanka-subagent"
const SPAN_ID = /^[\da-f]{16}$/

export function instrumentAgent(otel: Otel, create: (options: AgentOptions) => Agent, options: AgentOptions, target: RunTarget): Agent {
  const current = new AsyncLocalStorage<Context>()
  const models = new Map<Model, Model>()
  const traceModel = (model: Model) => models.get(model) ?? models.set(model, tracedModel(otel, model, current)).get(model)!
  const subagentModel = options.subagentModel ?? options.model
  let sessionId = ""
  const executors = new Map<Executor, Executor>()
  const traceExecutor = (executor: Executor, host: string | undefined) =>
    executors.get(executor) ?? executors.set(executor, tracedExecutor(executor, host, { otel, current, subagentModel, sessionId: () => sessionId })).get(executor)!
  const hosts = options.hosts?.map((host) => ({ ...host, executor: traceExecutor(host.executor, host.name) }))
  const agent = create({
    ...options,
    model: traceModel(options.model),
    subagentModel: traceModel(subagentModel),
    executor: traceExecutor(options.executor, options.hosts?.find((host) => host.executor === options.executor)?.name ?? target.host),
    ...(hosts ? { hosts } : {}),
  })
  sessionId = agent.sessionId

  async function* send(prompt: string, sendOptions?: Parameters<Agent["send"]>[1]): AsyncGenerator<AgentEvent> {
    const started = performance.now()
    const base: Attributes = {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": options.model.provider,
      "gen_ai.request.model": options.model.id,
    }
    const span = otel.tracer.startSpan(
      `invoke_agent ${AGENT}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: now(),
        attributes: {
          ...base,
          "gen_ai.agent.name": AGENT,
          "gen_ai.conversation.id": agent.sessionId,
          "clanka.executor.kind": target.executorKind,
          ...(target.host === undefined ? {} : { "clanka.host": target.host }),
        },
      },
      otel.root,
    )
    const context = trace.setSpan(otel.root, span)
    // The agent's work starts on the first next(): each runs in the run's context.
    const events = current.run(context, () => agent.send(prompt, sendOptions)[Symbol.asyncIterator]())
    let errorType: string | undefined
    try {
      while (true) {
        const step = await current.run(context, () => events.next())
        if (step.done) break
        errorType = observeRun(span, step.value) ?? errorType
        yield step.value
      }
    } finally {
      await events.return?.(undefined)
      span.end(now())
      otel.metrics.agentDuration.record((performance.now() - started) / 1000, { ...base, ...(errorType ? { "error.type": errorType } : {}) })
    }
  }

  return {
    get sessionId() {
      return agent.sessionId
    },
    get history() {
      return agent.history
    },
    send,
    steer: (message) => agent.steer(message),
    compact: (compactOptions) => agent.compact(compactOptions),
  }
}

/** Attributes the run's events tell; the error type when the run failed. */
function observeRun(span: Span, event: AgentEvent): string | undefined {
  if (event._tag === "AgentStart") {
    const sandbox = event.sandbox as { mode: string; network: boolean; backend?: unknown }
    span.setAttributes({
      "gen_ai.agent.id": event.id,
      "clanka.sandbox.mode": sandbox.mode,
      "clanka.sandbox.network": sandbox.network,
      ...(typeof sandbox.backend === "string" ? { "clanka.sandbox.backend": sandbox.backend } : {}),
    })
  } else if (event._tag === "AgentFinished") {
    span.setAttributes({ ...usageAttributes(event.usage), "clanka.turns": event.turns })
    if (event.usage.costUsd !== null) span.setAttribute("clanka.cost.usd", event.usage.costUsd)
  } else if (event._tag === "AgentError") {
    const type = exitType(event.exitCode)
    span.setStatus({ code: SpanStatusCode.ERROR, message: event.message })
    span.setAttributes({ "error.type": type, "clanka.exit_code": event.exitCode })
    return type
  }
  return undefined
}

function exitType(code: number): string {
  switch (code) {
    case ExitCode.usage:
      return "usage"
    case ExitCode.executorLost:
      return "executor_lost"
    case ExitCode.interrupted:
      return "interrupted"
    default:
      return "failed"
  }
}

interface Shared {
  otel: Otel
  current: AsyncLocalStorage<Context>
  subagentModel: Model
  sessionId(): string
}

/**
 * The executor, with its scripts as `execute_tool execute` spans and the trace context sent along;
 * everything else it has (also what a caller reads off a particular kind) is the executor's own.
 */
function tracedExecutor(inner: Executor, host: string | undefined, shared: Shared): Executor {
  const traced = new TracedExecute(inner, host, shared)
  return new Proxy(inner, {
    get(target, key) {
      if (key === "execute") return (options: ExecuteOptions) => traced.execute(options)
      const value: unknown = Reflect.get(target, key, target)
      return typeof value === "function" ? value.bind(target) : value
    },
  })
}

class TracedExecute {
  constructor(
    private readonly inner: Executor,
    private readonly host: string | undefined,
    private readonly shared: Shared,
  ) {}

  execute(options: ExecuteOptions): AsyncIterable<string> {
    const { otel, current } = this.shared
    const parent = current.getStore() ?? otel.root
    const base: Attributes = {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "execute",
      ...(this.host === undefined ? {} : { "clanka.host": this.host }),
    }
    const started = performance.now()
    const span = otel.tracer.startSpan("execute_tool execute", { kind: SpanKind.INTERNAL, startTime: now(), attributes: { ...base, "gen_ai.tool.type": "function" } }, parent)
    const context = trace.setSpan(parent, span)
    const script = span.spanContext()
    const traced: ExecuteOptions = {
      ...options,
      ...(span.isRecording() ? { trace: otel.traceContext(script), onSpans: (spans: ExecutorSpan[]) => this.export(spans, script) } : {}),
      onSubagent: (prompt, request) => this.subagent(context, script, prompt, request, options),
    }
    const inner = this.inner.execute(traced)
    return (async function* () {
      let failure: unknown
      try {
        yield* inner
      } catch (error) {
        failure = error
        throw error
      } finally {
        const errorType = failure === undefined ? undefined : failure instanceof Error ? failure.name : "_OTHER"
        if (failure !== undefined) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: failure instanceof Error ? failure.message : String(failure) })
          span.setAttribute("error.type", errorType!)
        }
        span.end(now())
        otel.metrics.toolDuration.record((performance.now() - started) / 1000, { ...base, ...(errorType ? { "error.type": errorType } : {}) })
      }
    })()
  }

  /** The executor's spans of the script's tool calls, exported with the ids it gave them. */
  private export(spans: ExecutorSpan[], script: SpanContext): void {
    const { otel } = this.shared
    for (const made of spans) {
      if (!SPAN_ID.test(made.spanId)) continue
      const parentId = made.parentSpanId !== undefined && SPAN_ID.test(made.parentSpanId) ? made.parentSpanId : script.spanId
      const parent = trace.setSpanContext(ROOT_CONTEXT, { ...script, spanId: parentId })
      const attributes: Attributes = { ...made.attributes, ...(this.host === undefined ? {} : { "clanka.host": this.host }) }
      const span = otel.withSpanId(made.spanId, () =>
        otel.tracer.startSpan(made.name, { kind: SpanKind.INTERNAL, startTime: hrTime(made.startMs), attributes }, parent),
      )
      if (made.error !== undefined) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: made.error })
        span.setAttribute("error.type", "_OTHER")
      }
      span.end(hrTime(Math.max(made.startMs, made.endMs)))
      const metric: Attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": typeof made.attributes?.["gen_ai.tool.name"] === "string" ? made.attributes["gen_ai.tool.name"] : made.name,
        ...(this.host === undefined ? {} : { "clanka.host": this.host }),
        ...(made.error === undefined ? {} : { "error.type": "_OTHER" }),
      }
      otel.metrics.toolDuration.record(Math.max(0, made.endMs - made.startMs) / 1000, metric)
    }
  }

  /** A sub-agent: an `invoke_agent` span under the delegate() call (or the script) that started it. */
  private subagent(context: Context, script: SpanContext, prompt: string, request: SubagentRequest | undefined, options: ExecuteOptions): Promise<string> {
    const { otel, current, subagentModel } = this.shared
    const parent =
      request?.spanId !== undefined && SPAN_ID.test(request.spanId)
        ? trace.setSpanContext(ROOT_CONTEXT, { ...script, spanId: request.spanId, isRemote: true })
        : context
    const span = otel.tracer.startSpan(
      `invoke_agent ${SUBAGENT}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: now(),
        attributes: {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.name": SUBAGENT,
          "gen_ai.provider.name": subagentModel.provider,
          "gen_ai.request.model": subagentModel.id,
          "gen_ai.conversation.id": this.shared.sessionId(),
          ...(request?.host === undefined ? {} : { "clanka.host": request.host }),
        },
      },
      parent,
    )
    const { spanId: _, ...asked } = request ?? {}
    const run = () => (Object.keys(asked).length === 0 ? options.onSubagent(prompt) : options.onSubagent(prompt, asked))
    return current.run(trace.setSpan(parent, span), () => new Promise<string>((resolve) => resolve(run()))).then(
      (summary) => {
        span.end(now())
        return summary
      },
      (error: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) })
        span.setAttribute("error.type", "_OTHER")
        span.end(now())
        throw error
      },
    )
  }
}
