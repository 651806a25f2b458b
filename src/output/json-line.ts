/**
 * One value as one line of NDJSON that any consumer reads back as it was written. JSON.stringify
 * alone is not enough for two kinds of reader:
 *
 * - Strict parsers (jq, serde_json, Go with its checks) reject the escape JSON.stringify writes for
 *   a lone UTF-16 surrogate (`"\ud800"`): the whole line would be lost, so it becomes U+FFFD, as
 *   script output already does.
 * - Line splitters other than "\n" (Python's `str.splitlines()`, Bun's readline) also break at
 *   U+0085, U+2028 and U+2029, which JSON.stringify leaves raw: they are written escaped.
 *
 * Both can only occur inside strings (the JSON around them is ASCII), so rewriting the text is safe.
 */

/** An escaped lone surrogate, not preceded by an escaped backslash (`\\ud800` is text). */
const LONE_SURROGATE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][\da-f]{2}/g
const LINE_BREAKS = /[\u0085\u2028\u2029]/g

export function jsonLine(value: unknown): string {
  return portableJson(JSON.stringify(value))
}

/** JSON text as JSON.stringify wrote it (after any rewriting, such as redaction), made portable. */
export function portableJson(text: string): string {
  // JSON.stringify writes a well-formed pair raw, so every such escape is a lone surrogate.
  if (text.includes("\\ud")) text = text.replace(LONE_SURROGATE, "$1\\ufffd")
  return text.replace(LINE_BREAKS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)
}
