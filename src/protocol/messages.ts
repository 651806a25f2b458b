/**
 * The executor protocol (SPEC section 4): JSON-RPC 2.0, one message per line. These schemas are
 * the single source of truth for what crosses the wire; server and client both validate with them.
 * The capabilities and the execute request are the Executor contract's own (src/contract.ts).
 */
import * as v from "valibot"
import { CapabilitiesRequestSchema, ExecutorSpanSchema, ScriptImageSchema } from "../contract.ts"

/** JSON-RPC error codes used by the protocol. */
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  toolFailed: -32000,
  cancelled: -32001,
} as const

export const RequestIdSchema = v.union([v.string(), v.number()])
export type RequestId = v.InferOutput<typeof RequestIdSchema>

/** The envelope every incoming line must have; `params` is checked per method afterwards. */
export const RequestSchema = v.object({
  jsonrpc: v.literal("2.0"),
  id: v.optional(v.nullable(RequestIdSchema)),
  method: v.string(),
  params: v.optional(v.unknown()),
})
export type Request = v.InferOutput<typeof RequestSchema>

// Params of each method. Objects are loose: extra fields from a newer agent are ignored.
export const CapabilitiesParamsSchema = v.optional(v.union([CapabilitiesRequestSchema, v.tuple([])]))
export const SubagentOutputParamsSchema = v.looseObject({
  id: RequestIdSchema,
  output: v.string(),
  /** When set, the sub-agent failed and the script's delegate() rejects with this message. */
  error: v.optional(v.string()),
})
/** The agent's answer to an AgentCall output: the service's result, or `error` (the call rejects). */
export const AgentCallResultParamsSchema = v.looseObject({
  id: RequestIdSchema,
  result: v.optional(v.unknown()),
  error: v.optional(v.string()),
})
export const ExecuteUnsafeParamsSchema = v.looseObject({
  tool: v.string(),
  params: v.optional(v.unknown()),
})
export const CancelParamsSchema = v.looseObject({ id: RequestIdSchema })

export type SubagentOutputParams = v.InferOutput<typeof SubagentOutputParamsSchema>
export type ExecuteUnsafeParams = v.InferOutput<typeof ExecuteUnsafeParamsSchema>

export const ExecuteResultSchema = v.union([
  v.looseObject({ ok: v.literal(true) }),
  v.looseObject({ ok: v.literal(false), error: v.string() }),
])
export type ExecuteResult = v.InferOutput<typeof ExecuteResultSchema>

/** What an execute produces besides its result, in `execute/output` notifications. */
export const OutputSchema = v.variant("_tag", [
  /** `report`: the failed script's report (its error and code frame), after all its other output. */
  v.looseObject({ _tag: v.literal("Text"), text: v.string(), report: v.optional(v.boolean()) }),
  v.looseObject({ _tag: v.literal("TaskComplete"), summary: v.string() }),
  /** `host`: run the sub-agent's scripts on that host of the agent's run (delegate(task, {host})). */
  /** `spanId`: the span of the delegate() call, when the execute carried a trace context. */
  v.looseObject({ _tag: v.literal("Subagent"), id: RequestIdSchema, prompt: v.string(), host: v.optional(v.string()), spanId: v.optional(v.string()) }),
  /** A script asks for an agent-side service (webSearch); answered with agentCallResult. */
  v.looseObject({ _tag: v.literal("AgentCall"), id: RequestIdSchema, service: v.string(), params: v.unknown() }),
  /** An image the script shows the model; sent only to an execute whose request had `images` with a size. */
  v.looseObject({ _tag: v.literal("Image"), image: ScriptImageSchema }),
  /** Spans of the script's tool calls; only sent when the execute request carried `trace`. */
  v.looseObject({ _tag: v.literal("Spans"), spans: v.array(ExecutorSpanSchema) }),
])
export type Output = v.InferOutput<typeof OutputSchema>

export const OutputNotificationParamsSchema = v.looseObject({
  id: RequestIdSchema,
  output: OutputSchema,
})

export const ErrorObjectSchema = v.looseObject({
  code: v.number(),
  message: v.string(),
  data: v.optional(v.unknown()),
})
export type ErrorObject = v.InferOutput<typeof ErrorObjectSchema>

/** Anything the executor may write: a response or a notification. */
export const IncomingSchema = v.union([
  v.looseObject({
    jsonrpc: v.literal("2.0"),
    id: v.nullable(RequestIdSchema),
    result: v.unknown(),
  }),
  v.looseObject({
    jsonrpc: v.literal("2.0"),
    id: v.nullable(RequestIdSchema),
    error: ErrorObjectSchema,
  }),
  v.looseObject({
    jsonrpc: v.literal("2.0"),
    method: v.string(),
    params: v.optional(v.unknown()),
  }),
])

/** A valibot issue reduced to what is worth sending: no inputs (they can be huge), no functions. */
export interface WireIssue {
  kind: string
  type: string
  message: string
  expected: string | null
  received: string
  path?: { type: string; origin: string; key: unknown }[]
}

export function wireIssues(issues: readonly v.BaseIssue<unknown>[]): WireIssue[] {
  return issues.map((issue) => ({
    kind: issue.kind,
    type: issue.type,
    message: issue.message,
    expected: issue.expected,
    received: issue.received,
    ...(issue.path
      ? { path: issue.path.map((item) => ({ type: item.type, origin: item.origin, key: item.key })) }
      : {}),
  }))
}

/** Key of a request id in maps: 1 and "1" are different ids. */
export function idKey(id: RequestId): string {
  return typeof id === "number" ? `n${id}` : `s${id}`
}
