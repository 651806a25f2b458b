// What a model meant by the text of a template literal that broke its script, written back as
// template source that means exactly that. The model typed the text it wanted, not JavaScript:
// - backslashes before a backtick or `${` (`\``, over-escaped `\\``) were its attempt to escape
//   them: the backtick or `${` is meant literally;
// - in a template spanning several lines (a patch, a file) every other backslash is the text's
//   own: `"a\nb"`, `/\s+/` and `\` line continuations belong to the code being written;
// - a template on one line is written like a JavaScript string: `\n`, `\t`, `\"` … are escapes,
//   other backslashes (`\d`, `C:\Users`) are the text's own; not so in a String.raw template,
//   where the model chose to have every backslash kept;
// - `${…}` is literal, unless the caller keeps it (an expression on the script's own variables).

/** Index of the backtick closing the template opened at `open`, read as JavaScript would; -1 if none. */
export function templateEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const char = text[i]
    if (char === "\\") i++
    else if (char === "`") return i
    else if (char === "$" && text[i + 1] === "{") {
      i = interpolationEnd(text, i + 2)
      if (i === -1) return -1
    }
  }
  return -1
}

/** Index of the `}` ending an interpolation whose expression starts at `from`; -1 if none. */
export function interpolationEnd(text: string, from: number): number {
  let depth = 0
  for (let i = from; i < text.length; i++) {
    const char = text[i]
    if (char === "'" || char === '"') {
      const quote = char
      for (i++; i < text.length && text[i] !== quote && text[i] !== "\n"; i++) if (text[i] === "\\") i++
      if (text[i] !== quote) return -1
    } else if (char === "`") {
      i = templateEnd(text, i)
      if (i === -1) return -1
    } else if (char === "{") depth++
    else if (char === "}") {
      if (depth === 0) return i
      depth--
    }
  }
  return -1
}

/** The escapes a model writing a one-line JavaScript string means as escapes. */
const STRING_ESCAPE = /^(?:[ntr"'\\bfv]|0(?![0-9])|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|u\{0*(?:[0-9a-fA-F]{1,5}|10[0-9a-fA-F]{4})\})/

/**
 * Template source for `text`, the part between a broken template's backticks. `keep` decides,
 * for each `${expression}` the model did not escape, whether it stays an interpolation; `raw`
 * says the text was tagged String.raw.
 */
export function templateSource(text: string, keep: (expression: string) => boolean = () => false, raw = false): string {
  const oneLine = !raw && !text.includes("\n")
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (char === "\\") {
      let run = i
      while (text[run] === "\\") run++
      if (text[run] === "`" || text.startsWith("${", run)) {
        // The model escaped it: a literal backtick or `${`, however many backslashes it took.
        out += text[run] === "`" ? "\\`" : "\\${"
        i = text[run] === "`" ? run : run + 1
      } else if (oneLine) {
        const escape = STRING_ESCAPE.exec(text.slice(i + 1, i + 12))
        if (escape) {
          out += "\\" + escape[0]
          i += escape[0].length
        } else out += "\\\\"
      } else {
        out += "\\\\".repeat(run - i)
        i = run - 1
      }
    } else if (char === "`") out += "\\`"
    else if (char === "$" && text[i + 1] === "{") {
      const end = interpolationEnd(text, i + 2)
      if (end !== -1 && keep(text.slice(i + 2, end))) {
        out += text.slice(i, end + 1)
        i = end
      } else {
        out += "\\${"
        i++
      }
    } else out += char
  }
  return out
}
