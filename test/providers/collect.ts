/** Test helpers: run one model request and gather its parts or its error. */
import type { Message, Model, Part, ToolSpec } from "../../src/providers/model.ts"

export const executeTool: ToolSpec = {
  name: "execute",
  description: "Run a JavaScript program; what it prints is returned.",
  inputSchema: { type: "object", properties: { script: { type: "string" } }, required: ["script"] },
}

export async function collect(
  model: Model,
  messages: Message[] = [{ role: "user", content: "List the files." }],
  signal = new AbortController().signal,
): Promise<Part[]> {
  const parts: Part[] = []
  for await (const part of model.stream({ system: "You are clanka.", messages, tools: [executeTool], signal }))
    parts.push(part)
  return parts
}

export async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error("expected a failure")
}

/**
 * The assistant message for a response, by the Part conventions: a `provider-data` part belongs
 * to the reasoning block it appears in (it comes just before that block's reasoning-end).
 */
export function assistantFrom(parts: Part[]): Message {
  const content: Extract<Message, { role: "assistant" }>["content"] = []
  let text: { type: "text"; text: string } | { type: "reasoning"; text: string; providerData?: unknown } | null = null
  for (const part of parts) {
    if (part.type === "text-start") content.push((text = { type: "text", text: "" }))
    else if (part.type === "reasoning-start") content.push((text = { type: "reasoning", text: "" }))
    else if ((part.type === "text-delta" || part.type === "reasoning-delta") && text) text.text += part.delta
    else if (part.type === "provider-data" && text?.type === "reasoning") text.providerData = part.data
    else if (part.type === "tool-call") content.push({ type: "tool-call", id: part.id, name: part.name, input: part.input })
  }
  return { role: "assistant", content }
}

/**
 * The parts of an execute call whose input JSON the fake server sends in `chunks` equal pieces
 * (the fake's `chunks` option): start, one delta a piece, end, then the whole call.
 */
export function executeCallParts(id: string, script: string, chunks: number): Part[] {
  const json = JSON.stringify({ script })
  const size = Math.ceil(json.length / chunks)
  const pieces = Array.from({ length: chunks }, (_, i) => json.slice(i * size, (i + 1) * size))
  return [
    { type: "tool-input-start", id, name: "execute" },
    ...pieces.map((delta): Part => ({ type: "tool-input-delta", id, delta })),
    { type: "tool-input-end", id },
    { type: "tool-call", id, name: "execute", input: { script } },
  ]
}

/** The history after a first response that called execute: the question, that response, the call's output. */
export function afterExecute(first: Part[], toolCallId: string, output: string): Message[] {
  return [{ role: "user", content: "List the files." }, assistantFrom(first), { role: "tool", toolCallId, content: output }]
}
