/**
 * The executor side of the protocol: wraps any Executor and serves it on a pair of streams
 * (stdin/stdout for `clanka executor`). Every bad line is answered and serving goes on; when the
 * input ends, running executes are cancelled, the executor is closed, and the promise resolves.
 */
import * as v from "valibot"
import { type AgentCall, CancelledError, type ExecuteOptions, ExecuteParamsSchema, type ImagePolicy, type ScriptImage, type Executor, InvalidParamsError, ScriptError, ToolError, UnknownToolError } from "../contract.ts"
import { formatIssues } from "../errors.ts"
import { PROTOCOL_VERSION } from "../version.ts"
import { DEFAULT_MAX_LINE_BYTES, LineWriter, readFrames, type Sink } from "./framing.ts"
import {
  CancelParamsSchema,
  CapabilitiesParamsSchema,
  ErrorCode,
  ExecuteUnsafeParamsSchema,
  idKey,
  RequestSchema,
  SubagentOutputParamsSchema,
  AgentCallResultParamsSchema,
  wireIssues,
  type Output,
  type RequestId,
} from "./messages.ts"
import { errorMessage } from "../util/error-message.ts"

export interface ServeOptions {
  maxLineBytes?: number
  /** Diagnostics (never protocol); default: stderr. */
  log?: (line: string) => void
}

/** Text is coalesced per execute up to this many characters per notification. */
const TEXT_CHUNK = 64 * 1024

/** Why executes stop when the input ends: the agent is told the executor went away, not that it cancelled. */
const SHUTDOWN = new CancelledError("the executor is shutting down")

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

/** A question to the agent (a sub-agent, an agent-side service) that a script waits on. */
interface Waiting {
  executeKey: string
  resolve(value: unknown): void
  reject(error: Error): void
}

/**
 * The execute's image policy as the executor uses it. Each image goes after what was printed
 * before it, in a notification of its own (a line as long as the image in base64: the agent's
 * reader takes far longer lines).
 */
function imageReceiver(policy: ImagePolicy, send: (image: ScriptImage) => void): NonNullable<ExecuteOptions["images"]> {
  if ("refused" in policy && typeof policy.refused === "string") return { refused: policy.refused }
  const { maxBytes, maxSide } = policy as { maxBytes: number; maxSide?: number }
  return { maxBytes, ...(maxSide === undefined ? {} : { maxSide }), receive: send }
}

export async function serveExecutor(
  executor: Executor,
  input: AsyncIterable<Uint8Array | string>,
  output: Sink,
  options: ServeOptions = {},
): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`clanka executor: ${line}\n`))
  const writer = new LineWriter(output)
  const inFlight = new Set<string>()
  /** Running executes by request id, each with the way to cancel it. */
  const executes = new Map<string, AbortController>()
  const subagents = new Map<string, Waiting>()
  const agentCalls = new Map<string, Waiting>()
  const tasks = new Set<Promise<void>>()
  let nextSubagentId = 1
  let nextAgentCallId = 1

  /** onAgentCall for the request `key`: an AgentCall output, answered by agentCallResult. */
  const agentCallVia =
    (key: string, notify: (output: Output) => void, signal?: AbortSignal): AgentCall =>
    (service, callParams) => {
      if (signal?.aborted) return Promise.reject(new CancelledError())
      const callId = nextAgentCallId++
      notify({ _tag: "AgentCall", id: callId, service, params: callParams })
      return new Promise((resolve, reject) => agentCalls.set(idKey(callId), { executeKey: key, resolve, reject }))
    }

  /** The questions of request `key` still unanswered when it ends can no longer be answered. */
  const forgetWaiting = (key: string) => {
    for (const waiting of [subagents, agentCalls]) {
      for (const [waitKey, entry] of waiting) {
        if (entry.executeKey !== key) continue
        waiting.delete(waitKey)
        entry.reject(new CancelledError("the request that asked this ended"))
      }
    }
  }

  const reply = (id: RequestId | null, result: unknown) =>
    writer.send({ jsonrpc: "2.0", id, result: result === undefined ? null : result })
  const replyError = (id: RequestId | null, error: RpcError) =>
    writer.send({
      jsonrpc: "2.0",
      id,
      error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) },
    })

  function params<T>(method: string, schema: v.GenericSchema<unknown, T>, value: unknown): T {
    const parsed = v.safeParse(schema, value)
    if (parsed.success) return parsed.output
    throw new RpcError(ErrorCode.invalidParams, `invalid params for ${method}: ${formatIssues(parsed.issues)}`, wireIssues(parsed.issues))
  }

  async function runExecute(id: RequestId, raw: unknown): Promise<unknown> {
    const { script, timeoutMs, images, trace } = params("execute", ExecuteParamsSchema, raw)
    const key = idKey(id)
    const controller = new AbortController()
    let text = ""
    let scheduled = false
    const notify = (out: Output) => writer.send({ jsonrpc: "2.0", method: "execute/output", params: { id, output: out } })
    const flushText = () => {
      scheduled = false
      while (text.length > 0) {
        notify({ _tag: "Text", text: text.slice(0, TEXT_CHUNK) })
        text = text.slice(TEXT_CHUNK)
      }
    }
    executes.set(key, controller)
    try {
      const iterable = executor.execute({
        script,
        timeoutMs,
        signal: controller.signal,
        ...(images === undefined ? {} : { images: imageReceiver(images, (image) => (flushText(), notify({ _tag: "Image", image }))) }),
        onTaskComplete(summary) {
          flushText()
          notify({ _tag: "TaskComplete", summary })
        },
        onSubagent(prompt, options) {
          if (controller.signal.aborted) return Promise.reject(new CancelledError())
          const subId = nextSubagentId++
          flushText()
          notify({
            _tag: "Subagent",
            id: subId,
            prompt,
            ...(options?.host === undefined ? {} : { host: options.host }),
            ...(options?.spanId === undefined ? {} : { spanId: options.spanId }),
          })
          return new Promise<string>((resolve, reject) => {
            subagents.set(idKey(subId), { executeKey: key, resolve: (value) => resolve(value as string), reject })
          })
        },
        onAgentCall: agentCallVia(key, (out) => (flushText(), notify(out)), controller.signal),
        // Marked, so that a client can keep it apart from what the script printed (clanka exec).
        onReport(report) {
          flushText()
          for (let at = 0; at < report.length; at += TEXT_CHUNK) notify({ _tag: "Text", text: report.slice(at, at + TEXT_CHUNK), report: true })
        },
        // Output printed before a tool call leaves before the tool runs, not a tick later.
        beforeTool() {
          flushText()
          writer.flush()
        },
        // Only an agent that sent a trace context gets spans (an older one would not know them).
        ...(trace
          ? {
              trace,
              onSpans(spans) {
                flushText()
                if (spans.length > 0) notify({ _tag: "Spans", spans })
              },
            }
          : {}),
      })
      for await (const chunk of iterable) {
        text += chunk
        if (text.length >= TEXT_CHUNK) {
          flushText()
          await writer.drained
        } else if (!scheduled) {
          scheduled = true
          setImmediate(flushText)
        }
      }
      flushText()
      return { ok: true }
    } catch (error) {
      flushText()
      if (controller.signal.reason === SHUTDOWN) {
        throw new RpcError(ErrorCode.cancelled, `execute ${JSON.stringify(id)} was stopped: the executor is shutting down`, { shutdown: true })
      }
      if (controller.signal.aborted || error instanceof CancelledError) {
        throw new RpcError(ErrorCode.cancelled, `execute ${JSON.stringify(id)} was cancelled`)
      }
      if (error instanceof ScriptError) return { ok: false, error: error.message }
      const message = errorMessage(error)
      return { ok: false, error: message.split("\n")[0] ?? "" }
    } finally {
      forgetWaiting(key)
      executes.delete(key)
    }
  }

  async function runExecuteUnsafe(id: RequestId, raw: unknown): Promise<unknown> {
    const { tool, params: toolParams } = params("executeUnsafe", ExecuteUnsafeParamsSchema, raw)
    const notify = (out: Output) => writer.send({ jsonrpc: "2.0", method: "execute/output", params: { id, output: out } })
    try {
      return await executor.executeUnsafe(tool, toolParams, { onAgentCall: agentCallVia(idKey(id), notify) })
    } catch (error) {
      if (error instanceof UnknownToolError) {
        throw new RpcError(ErrorCode.invalidParams, error.message, { unknownTool: error.tool, tools: error.known })
      }
      if (error instanceof InvalidParamsError) {
        throw new RpcError(ErrorCode.invalidParams, error.message, wireIssues(error.issues))
      }
      if (error instanceof CancelledError) throw new RpcError(ErrorCode.cancelled, error.message)
      if (error instanceof ToolError) throw new RpcError(ErrorCode.toolFailed, error.message)
      const message = errorMessage(error)
      throw new RpcError(ErrorCode.toolFailed, `${tool}: ${message.split("\n")[0]}`)
    } finally {
      forgetWaiting(idKey(id))
    }
  }

  async function runCapabilities(raw: unknown): Promise<unknown> {
    const request = params("capabilities", CapabilitiesParamsSchema, raw)
    const capabilities = await executor.capabilities(Array.isArray(request) ? undefined : request)
    return { ...capabilities, protocolVersion: PROTOCOL_VERSION }
  }

  function subagentOutput(raw: unknown): null {
    const { id, output: text, error } = params("subagentOutput", SubagentOutputParamsSchema, raw)
    const waiting = subagents.get(idKey(id))
    if (!waiting) {
      throw new RpcError(ErrorCode.invalidParams, `subagentOutput: no sub-agent is waiting with id ${JSON.stringify(id)}`)
    }
    subagents.delete(idKey(id))
    if (error !== undefined) waiting.reject(new ToolError(error))
    else waiting.resolve(text)
    return null
  }

  function agentCallResult(raw: unknown): null {
    const { id, result, error } = params("agentCallResult", AgentCallResultParamsSchema, raw)
    const waiting = agentCalls.get(idKey(id))
    if (!waiting) throw new RpcError(ErrorCode.invalidParams, `agentCallResult: no agent call is waiting with id ${JSON.stringify(id)}`)
    agentCalls.delete(idKey(id))
    if (error !== undefined) waiting.reject(new ToolError(error))
    else waiting.resolve(result)
    return null
  }

  function cancel(raw: unknown): null {
    const { id } = params("$/cancel", CancelParamsSchema, raw)
    const running = executes.get(idKey(id))
    if (!running) throw new RpcError(ErrorCode.invalidParams, `$/cancel: no execute is running with id ${JSON.stringify(id)}`)
    running.abort(new CancelledError())
    return null
  }

  const methods: Record<string, (id: RequestId, params: unknown) => unknown> = {
    capabilities: (_id, raw) => runCapabilities(raw),
    execute: (id, raw) => runExecute(id, raw),
    executeUnsafe: (id, raw) => runExecuteUnsafe(id, raw),
    subagentOutput: (_id, raw) => subagentOutput(raw),
    agentCallResult: (_id, raw) => agentCallResult(raw),
    // Liveness: answered at once, also while scripts run (they run in workers, not on this loop).
    ping: () => null,
  }

  /** JSON-RPC never answers a notification: what is wrong with one goes to the log. */
  function notification(method: string, raw: unknown): void {
    try {
      if (method === "$/cancel") cancel(raw)
      else if (method in methods) log(`ignored a notification: ${method} needs a string or number "id"`)
      else log(`ignored a notification: unknown method "${method}"`)
    } catch (error) {
      log(`ignored a notification: ${errorMessage(error)}`)
    }
  }

  function handle(line: string): void {
    let message: unknown
    try {
      message = JSON.parse(line)
    } catch {
      replyError(null, new RpcError(ErrorCode.parseError, "parse error: the line is not valid JSON"))
      return
    }
    if (Array.isArray(message)) {
      replyError(null, new RpcError(ErrorCode.invalidRequest, "invalid request: batches are not supported; send one request per line"))
      return
    }
    if (typeof message !== "object" || message === null) {
      replyError(null, new RpcError(ErrorCode.invalidRequest, "invalid request: not a JSON-RPC request object"))
      return
    }
    const envelope = v.safeParse(RequestSchema, message)
    if (!envelope.success) {
      const { id: rawId, method } = message as { id?: unknown; method?: unknown }
      const id = typeof rawId === "string" || typeof rawId === "number" ? rawId : null
      const what =
        method === undefined
          ? "missing method"
          : 'needs "jsonrpc": "2.0", a string "method" and a string or number "id"'
      replyError(id, new RpcError(ErrorCode.invalidRequest, `invalid request: ${what}`, wireIssues(envelope.issues)))
      return
    }
    const { id, method, params: raw } = envelope.output
    if (id === undefined) return notification(method, raw)
    if (method === "$/cancel") {
      try {
        cancel(raw)
        reply(id, null)
      } catch (error) {
        replyError(id, error as RpcError)
      }
      return
    }
    const run = methods[method]
    if (!run) {
      replyError(id, new RpcError(ErrorCode.methodNotFound, `unknown method "${method}"; methods: ${[...Object.keys(methods), "$/cancel"].join(", ")}`))
      return
    }
    if (id === null) {
      replyError(null, new RpcError(ErrorCode.invalidRequest, `invalid request: ${method} needs a string or number "id"`))
      return
    }
    const key = idKey(id)
    if (inFlight.has(key)) {
      // Answered with id null: an answer carrying the id would be taken for the first request's.
      replyError(null, new RpcError(ErrorCode.invalidRequest, `invalid request: id ${JSON.stringify(id)} is already in flight`))
      return
    }
    inFlight.add(key)
    const task = (async () => {
      try {
        reply(id, await run(id, raw))
      } catch (error) {
        if (error instanceof RpcError) replyError(id, error)
        else {
          const text = errorMessage(error)
          log(`internal error in ${method}: ${text}`)
          replyError(id, new RpcError(ErrorCode.internalError, `internal error: ${text.split("\n")[0]}`))
        }
      } finally {
        inFlight.delete(key)
      }
    })()
    tasks.add(task)
    void task.finally(() => tasks.delete(task))
  }

  try {
    for await (const frame of readFrames(input, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)) {
      if ("tooLong" in frame) {
        replyError(null, new RpcError(ErrorCode.invalidRequest, `invalid request: line longer than ${frame.limit} bytes; skipped to the next newline`))
      } else handle(frame.line)
    }
  } catch (error) {
    log(`reading input failed: ${errorMessage(error)}`)
  }

  // The agent is gone: stop everything this connection started, at once. A tool call cannot be
  // cancelled, but closing the executor kills the processes it started, so it ends too; what is
  // still running answers as it ends (an agent may still read after it closed its side).
  for (const running of executes.values()) running.abort(SHUTDOWN)
  for (const waiting of [...subagents.values(), ...agentCalls.values()]) waiting.reject(new CancelledError())
  subagents.clear()
  agentCalls.clear()
  const closed = executor.close()
  await Promise.race([Promise.allSettled([...tasks]), new Promise((resolve) => setTimeout(resolve, 5000).unref())])
  writer.flush()
  await closed
}
