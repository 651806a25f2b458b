/**
 * Text from the model, a script or a repository file, made safe to print on a terminal: C0 and C1
 * control characters other than newline and tab (ESC, CR, BEL, backspace, NUL, DEL, 0x80–0x9f)
 * are shown in caret notation as `cat -v` does (`^[`, `^M`, `^G`, `^?`, `M-^[`), so no escape
 * sequence can clear the screen, retitle the window or overwrite lines. A CRLF line end is a line
 * end. Only what reaches a terminal goes through here; ndjson and piped results stay raw.
 */
const CONTROL = /\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g

export function visible(text: string): string {
  return text.replace(CONTROL, (match) => {
    if (match === "\r\n") return "\n"
    const code = match.charCodeAt(0)
    if (code === 0x7f) return "^?"
    if (code >= 0x80) return `M-${caret(code - 0x80)}`
    return caret(code)
  })
}

function caret(code: number): string {
  return `^${String.fromCharCode(code + 0x40)}`
}
