/**
 * The first model request of a run, sent while the executor is still starting: its system prompt
 * is built from what the executor is expected to announce (Executor.expectedPrompt). The loop's
 * first request takes it over when it is exactly that request, so the executor's start costs
 * nothing against the model's answer; when it is not (the executor announced something else), the
 * early request is cancelled and the loop's own goes out.
 */
import type { Model, Part, StreamRequest, TokenUsage } from "../providers/model.ts"
import { AsyncQueue } from "../util/async-queue.ts"

/** A request without what belongs to the turn that takes it (its signal and listeners). */
export type EarlyRequest = Pick<StreamRequest, "system" | "messages" | "tools">

export interface EarlyModel {
  /** `model`, whose first stream() may take over the early request. */
  model: Model
  /** Drops the early request if no turn took it (call when the run ends). */
  cancel(): void
}

/** Sends `request` as soon as it resolves (unless the loop asked for its first one before). */
export function withEarlyRequest(model: Model, request: Promise<EarlyRequest | undefined>): EarlyModel {
  let state: "waiting" | "sent" | "done" = "waiting"
  let early: EarlyRequest | undefined
  const controller = new AbortController()
  const parts = new AsyncQueue<Part>()
  /** The taking turn's listeners; until then activity is not timed and usage is kept. */
  let listeners: Pick<StreamRequest, "onActivity" | "onUsage"> = {}
  let usage: TokenUsage | undefined

  const cancel = () => {
    state = "done"
    controller.abort()
  }

  request.then(
    (resolved) => {
      if (state !== "waiting" || !resolved) return
      state = "sent"
      early = resolved
      const stream = model.stream({
        ...resolved,
        signal: controller.signal,
        onActivity: () => listeners.onActivity?.(),
        onUsage: (counts) => {
          usage = counts
          listeners.onUsage?.(counts)
        },
      })
      void (async () => {
        try {
          for await (const part of stream) parts.push(part)
          parts.end()
        } catch (error) {
          parts.fail(error)
        }
      })()
    },
    () => {},
  )

  const taken = (turn: StreamRequest): AsyncIterable<Part> => {
    state = "done"
    listeners = turn
    if (usage) turn.onUsage?.(usage)
    if (turn.signal.aborted) controller.abort()
    else turn.signal.addEventListener("abort", () => controller.abort(), { once: true })
    return {
      [Symbol.asyncIterator]: () => {
        const inner = parts[Symbol.asyncIterator]()
        return {
          next: () => inner.next(),
          // The turn stops reading (done, cut short, failed): the request ends with it.
          return: async () => {
            controller.abort()
            return (await inner.return?.()) ?? { done: true, value: undefined }
          },
        }
      },
    }
  }

  return {
    cancel,
    model: {
      ...model,
      stream(turn: StreamRequest): AsyncIterable<Part> {
        if (state === "sent" && early && sameRequest(early, turn)) return taken(turn)
        if (state !== "done") cancel()
        return model.stream(turn)
      },
    },
  }
}

function sameRequest(early: EarlyRequest, turn: StreamRequest): boolean {
  return early.system === turn.system && JSON.stringify(early.messages) === JSON.stringify(turn.messages) && JSON.stringify(early.tools) === JSON.stringify(turn.tools)
}
