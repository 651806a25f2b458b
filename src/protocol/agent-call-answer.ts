/**
 * The answer to an AgentCall (`agentCallResult`) as it may be sent: one protocol line, which the
 * executor reads only up to DEFAULT_MAX_LINE_BYTES. A larger one (an MCP tool's 9 MiB of text)
 * would be refused there without reaching the waiting call, and the script would wait forever:
 * the call fails with a line instead.
 */
import { DEFAULT_MAX_LINE_BYTES } from "./framing.ts"

export type AgentCallAnswer = { id: string | number; result: unknown } | { id: string | number; error: string }

/** Room for the request around the answer (`{"jsonrpc":"2.0","id":…,"method":"agentCallResult","params":…}`). */
const ENVELOPE_BYTES = 1024
/** An error's text is cut here: a server's error message can be as large as any result. */
const MAX_ERROR_CHARS = 64 * 1024

export function fitAnswer(answer: AgentCallAnswer, maxLineBytes = DEFAULT_MAX_LINE_BYTES): AgentCallAnswer {
  if ("error" in answer) return answer.error.length > MAX_ERROR_CHARS ? { id: answer.id, error: `${answer.error.slice(0, MAX_ERROR_CHARS)}… (cut)` } : answer
  let bytes: number
  try {
    bytes = Buffer.byteLength(JSON.stringify(answer))
  } catch (error) {
    return { id: answer.id, error: `its result cannot be sent: ${(error as Error).message}` }
  }
  if (bytes + ENVELOPE_BYTES <= maxLineBytes) return answer
  const mib = (n: number) => (n / 2 ** 20).toFixed(1)
  return { id: answer.id, error: `its result is too large to pass into the sandbox (${mib(bytes)} MiB; a message holds at most ${maxLineBytes / 2 ** 20} MiB)` }
}
