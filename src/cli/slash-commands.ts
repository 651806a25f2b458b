/**
 * Conversation mode's commands (`clanka run` with no prompt on a terminal): which typed line is a
 * command, and the list `/help` and `clanka help run` print. A line is a command only when it is
 * one word of letters and hyphens after a slash (`/help`, `/exti`); any other line is a request
 * for the model, also one that starts with a path (`/src/foo.ts is broken`, `/tmp is full`).
 */

export type SlashCommand = "help" | "compact" | "exit"

const NAMES: Record<string, SlashCommand> = { help: "help", compact: "compact", exit: "exit", quit: "exit" }

/** The commands and keys, as rows of the help: what to type, what it does. */
export const conversationKeys: Array<[string, string]> = [
  ["/help", "list these commands and keys"],
  ["/compact", "summarise the older history now (between turns)"],
  ["/exit, /quit", "leave"],
  ["Ctrl-C", "stop the running turn; with no turn running, leave"],
  ["Ctrl-D", "leave"],
  ["any other line", "a request; typed while the agent works, it steers the running turn"],
]

/** The command a typed line names, `{ unknown }` for a `/word` that is none, else undefined: a request. */
export function slashCommand(line: string): { command: SlashCommand } | { unknown: string } | undefined {
  const word = line.trim()
  if (!/^\/[A-Za-z][A-Za-z-]*$/.test(word)) return undefined
  const command = NAMES[word.slice(1).toLowerCase()]
  return command ? { command } : { unknown: word }
}
