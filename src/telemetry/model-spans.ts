/**
 * Model requests as `chat {model}` spans (GenAI semantic conventions), with their token usage,
 * cost and retries, and the token and duration metrics; and the clock every span of a run uses.
 */
import type { AsyncLocalStorage } from "node:async_hooks"
import { type Attributes, type Context, type HrTime, SpanKind, SpanStatusCode } from "@opentelemetry/api"
import type { Model, Part, StreamRequest, TokenUsage } from "../providers/model.ts"
import { costUsd } from "../providers/prices.ts"
import type { Otel } from "./otel.ts"

/** Token counts as the conventions count them: input includes the cached part. */
export function usageAttributes(usage: TokenUsage): Attributes {
  return {
    "gen_ai.usage.input_tokens": usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
    "gen_ai.usage.output_tokens": usage.outputTokens,
    "gen_ai.usage.cache_read.input_tokens": usage.cacheReadTokens,
    "gen_ai.usage.cache_creation.input_tokens": usage.cacheWriteTokens,
  }
}

const FINISH_REASONS = { tool: "tool_calls", end: "stop", length: "length", refusal: "content_filter" } as const

/**
 * A model whose every request is a `chat {model}` span. A request that repeats the last one of
 * the same history after it failed is a retry: `clanka.retries` counts those before it. A history
 * is known by its first message (the early first request and the loop's own share it).
 */
export function tracedModel(otel: Otel, model: Model, current: AsyncLocalStorage<Context>): Model {
  const attempts = new WeakMap<object, { length: number; retries: number; ok: boolean }>()
  return {
    ...model,
    stream(request: StreamRequest): AsyncIterable<Part> {
      const history: object = request.messages[0] ?? request.messages
      const previous = attempts.get(history)
      const retries = previous && !previous.ok && previous.length === request.messages.length ? previous.retries + 1 : 0
      const attempt = { length: request.messages.length, retries, ok: false }
      attempts.set(history, attempt)
      const base: Attributes = { "gen_ai.operation.name": "chat", "gen_ai.provider.name": model.provider, "gen_ai.request.model": model.id }
      const started = performance.now()
      const span = otel.tracer.startSpan(`chat ${model.id}`, { kind: SpanKind.CLIENT, startTime: now(), attributes: { ...base, "clanka.retries": retries } }, current.getStore() ?? otel.root)
      let usage: TokenUsage | undefined
      let ended = false
      const end = (error?: unknown) => {
        if (ended) return
        ended = true
        let errorType: string | undefined
        if (error !== undefined) {
          const status = (error as { status?: unknown }).status
          errorType = typeof status === "number" ? String(status) : error instanceof Error ? error.name : "_OTHER"
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) })
          span.setAttribute("error.type", errorType)
        }
        const attributes = { ...base, ...(errorType ? { "error.type": errorType } : {}) }
        if (usage) {
          span.setAttributes(usageAttributes(usage))
          const cost = costUsd(model.provider, model.id, usage)
          if (cost !== null) {
            span.setAttribute("clanka.cost.usd", cost)
            otel.metrics.cost.add(cost, base)
          }
          otel.metrics.tokenUsage.record(usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens, { ...base, "gen_ai.token.type": "input" })
          otel.metrics.tokenUsage.record(usage.outputTokens, { ...base, "gen_ai.token.type": "output" })
        }
        otel.metrics.operationDuration.record((performance.now() - started) / 1000, attributes)
        span.end(now())
      }
      const parts = model
        .stream({
          ...request,
          // Counts reported before a failure are billed: the span keeps them too.
          onUsage: (counts) => {
            usage = counts
            request.onUsage?.(counts)
          },
        })
        [Symbol.asyncIterator]()
      return {
        [Symbol.asyncIterator]: () => ({
          async next() {
            try {
              const step = await parts.next()
              if (step.done) end()
              else if (step.value.type === "finish") {
                usage = step.value.usage
                attempt.ok = true
                span.setAttribute("gen_ai.response.finish_reasons", [FINISH_REASONS[step.value.stop]])
              }
              return step
            } catch (error) {
              // A request the run cancelled (Ctrl-C, a dropped early request) is no error.
              end(request.signal?.aborted ? undefined : error)
              throw error
            }
          },
          // The agent stops reading: a complete response, a cut one (steering), or a timeout.
          async return(value?: unknown) {
            end()
            return (await parts.return?.(value)) ?? { done: true as const, value: undefined }
          },
        }),
      }
    },
  }
}

/**
 * Now, on the clock the executor's spans use too (time origin + monotonic time): the SDK's own
 * start times are whole milliseconds, which can put a child a moment before its parent.
 */
export function now(): HrTime {
  return hrTime(performance.timeOrigin + performance.now())
}

/** Epoch milliseconds as [seconds, nanoseconds]: a number would be read relative to this process's start when it is earlier. */
export function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000)
  return [seconds, Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6))]
}
