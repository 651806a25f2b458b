/**
 * The front matter of a SKILL.md: the YAML block between `---` lines at its top. Skills use a
 * small part of YAML (`name: …`, `description: …`, at times quoted or folded over several
 * lines), which is all this reads; keys it does not know (nested ones included) are passed over.
 */
export interface FrontMatter {
  /** Top-level scalar keys, their values as text. */
  fields: Record<string, string>
  /** What follows the closing `---`. */
  body: string
}

/** The front matter and the body, or undefined when the text does not start with `---`. */
export function parseFrontMatter(text: string): FrontMatter | undefined {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/)
  if (lines[0]?.trim() !== "---") return undefined
  const end = lines.findIndex((line, index) => index > 0 && /^(---|\.\.\.)\s*$/.test(line))
  if (end === -1) return undefined
  const fields: Record<string, string> = {}
  const block = lines.slice(1, end)
  for (let index = 0; index < block.length; index++) {
    const match = /^([A-Za-z_][\w-]*)\s*:(?:\s+(.*))?$/.exec(block[index]!)
    if (!match) continue
    // The indented lines after a key belong to it (a folded or multi-line value, or a nested map).
    const more: string[] = []
    while (index + 1 < block.length && (/^\s+\S/.test(block[index + 1]!) || block[index + 1]!.trim() === "")) more.push(block[++index]!)
    const value = scalar((match[2] ?? "").trim(), more)
    if (value !== undefined) fields[match[1]!] = value
  }
  return { fields, body: lines.slice(end + 1).join("\n") }
}

function scalar(value: string, more: string[]): string | undefined {
  const continued = more.map((line) => line.trim())
  if (/^[|>][+-]?$/.test(value)) {
    const parts = trimBlank(continued)
    return value.startsWith("|") ? parts.join("\n") : parts.join(" ").replace(/ {2,}/g, " ")
  }
  if (value === "") {
    // A nested map or list is not a scalar; plain text on the next lines is.
    const parts = trimBlank(continued)
    return parts.length === 0 || parts.some((line) => /^[\w-]+\s*:(\s|$)|^- /.test(line)) ? undefined : parts.join(" ")
  }
  const whole = [value, ...trimBlank(continued)].join(" ")
  if (whole.startsWith('"')) {
    const close = whole.lastIndexOf('"')
    const inner = close > 0 ? whole.slice(1, close) : whole.slice(1)
    return inner.replace(/\\(["\\/nt])/g, (_, char: string) => ({ n: "\n", t: "\t" })[char] ?? char)
  }
  if (whole.startsWith("'")) {
    const close = whole.lastIndexOf("'")
    return (close > 0 ? whole.slice(1, close) : whole.slice(1)).replace(/''/g, "'")
  }
  // A plain value ends at a comment.
  return whole.replace(/\s+#.*$/, "")
}

function trimBlank(lines: string[]): string[] {
  let start = 0
  let end = lines.length
  while (start < end && lines[start] === "") start++
  while (end > start && lines[end - 1] === "") end--
  return lines.slice(start, end)
}
