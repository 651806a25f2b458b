/**
 * The values `${NAME}` put into the MCP servers' config: tokens, mostly (in a header, a server's
 * env, a URL's query). Messages about those servers go to stderr, to scripts and into the system
 * prompt, and may quote what carries one (the URL a connection failed to, what a failing server
 * printed), so they show `${NAME}` in its place.
 */
const known = new Map<string, string>()

/** Shorter values are no secrets and would be found in ordinary words. */
const MIN_LENGTH = 6

export function rememberExpanded(name: string, value: string): void {
  if (value.length >= MIN_LENGTH) known.set(value, name)
}

/** `text` with every remembered value replaced by `${NAME}`, the longest first. */
export function redactExpanded(text: string): string {
  if (known.size === 0) return text
  const values = [...known.keys()].sort((a, b) => b.length - a.length)
  return values.reduce((out, value) => out.replaceAll(value, `\${${known.get(value)}}`), text)
}
