/** A tool call's input: the parsed JSON, or the raw text when it does not parse (cut off by a token limit). */
export function parseToolInput(json: string): unknown {
  if (json.trim() === "") return {}
  try {
    return JSON.parse(json)
  } catch {
    return json
  }
}
