/**
 * The history a session resumes from, rebuilt from its transcript: the history items in order,
 * starting over from the last compaction. A run that was killed leaves its last turn half done:
 * a response cut off while streaming was never added (only complete responses are), and a script
 * that was running when clanka died is answered with the output it had printed, saved as it ran,
 * and a note saying it was cut off — every tool call gets its result, as the providers require.
 */
import type { Message } from "../providers/model.ts"
import type { TranscriptLine } from "./transcript.ts"

const KILLED_NOTE = "[clanka was stopped while this script ran; it may not have finished]"

export function historyOf(lines: TranscriptLine[]): Message[] {
  let history: Message[] = []
  const output = new Map<string, string>()
  for (const line of lines) {
    if (line.type === "message") {
      history.push(line.message)
      if (line.message.role === "assistant") output.clear()
    } else if (line.type === "compaction") history = [...line.history]
    else if (line.type === "output") output.set(line.call, (output.get(line.call) ?? "") + line.text)
  }
  const lastAssistant = history.findLastIndex((message) => message.role === "assistant")
  if (lastAssistant === -1) return history
  const answered = new Set(history.slice(lastAssistant + 1).flatMap((message) => (message.role === "tool" ? [message.toolCallId] : [])))
  const assistant = history[lastAssistant] as Extract<Message, { role: "assistant" }>
  for (const part of assistant.content) {
    if (part.type !== "tool-call" || answered.has(part.id)) continue
    const printed = output.get(part.id) ?? ""
    history.push({ role: "tool", toolCallId: part.id, content: `${printed}${printed && !printed.endsWith("\n") ? "\n" : ""}${KILLED_NOTE}` })
  }
  return history
}
