/** A tool call's input: the parsed JSON, or the raw text when it does not parse (cut off by a token limit). */
export function parseToolInput(json: string): unknown {
  if (json.trim() === "") return {}
  try {
    return JSON.parse(json)
  } catch {
    return json
  }
}

/**
 * A call's input as it is echoed in the history: an object. Anthropic refuses a tool_use whose
 * input is anything else, and servers such as Ollama a call whose arguments are not an object; a
 * broken input (cut off, an array) was answered with an error that quotes it, so `{}` loses nothing.
 */
export function echoedInput(input: unknown): Record<string, unknown> {
  return typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {}
}
