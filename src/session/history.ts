/**
 * The history a session resumes from, rebuilt from its transcript: the history items in order,
 * starting over from the last compaction. A run that was killed leaves its last turn half done:
 * a response cut off while streaming was never added (only complete responses are), and a script
 * that was running when clanka died is answered with the output it had printed, saved as it ran,
 * and a note saying it was cut off — every tool call gets its result, as the providers require.
 */
import type { Message } from "../providers/model.ts"
import type { TranscriptLine } from "./transcript.ts"
import { messageProblem } from "./message-shape.ts"

const KILLED_NOTE = "[clanka was stopped while this script ran; it may not have finished]"

/** A transcript whose history cannot be sent to a model: what is wrong, in one line. */
export class DamagedHistoryError extends Error {
  override name = "DamagedHistoryError"
}

/** The history to go on from; DamagedHistoryError when an item is not one (a hand-edited file). */
export function historyOf(lines: TranscriptLine[]): Message[] {
  let history: Message[] = []
  const output = new Map<string, string>()
  let items = 0
  const check = (value: unknown, where: string): Message => {
    const problem = messageProblem(value)
    if (problem) throw new DamagedHistoryError(`${where} is damaged: ${problem}`)
    return value as Message
  }
  for (const line of lines) {
    if (line.type === "message") {
      const message = check(line.message, `history item ${++items}`)
      history.push(message)
      if (message.role === "assistant") output.clear()
    } else if (line.type === "compaction") {
      if (!Array.isArray(line.history)) throw new DamagedHistoryError("a compaction line holds no history list")
      history = line.history.map((message, index) => check(message, `item ${index + 1} of a compaction's history`))
    } else if (line.type === "output" && typeof line.call === "string" && typeof line.text === "string") {
      output.set(line.call, (output.get(line.call) ?? "") + line.text)
    }
  }
  const lastAssistant = history.findLastIndex((message) => message.role === "assistant")
  if (lastAssistant === -1) return history
  const answered = new Set(history.slice(lastAssistant + 1).flatMap((message) => (message.role === "tool" ? [message.toolCallId] : [])))
  const assistant = history[lastAssistant] as Extract<Message, { role: "assistant" }>
  const missing: Message[] = []
  for (const part of assistant.content) {
    if (part.type !== "tool-call" || answered.has(part.id)) continue
    const printed = output.get(part.id) ?? ""
    missing.push({ role: "tool", toolCallId: part.id, content: `${printed}${printed && !printed.endsWith("\n") ? "\n" : ""}${KILLED_NOTE}` })
  }
  // Right after the call's other results: a resumed run killed before its first response left its
  // prompt after the call, and a result after a later user message is refused by every provider.
  let at = lastAssistant + 1
  while (at < history.length && history[at]!.role === "tool") at++
  history.splice(at, 0, ...missing)
  return history
}
