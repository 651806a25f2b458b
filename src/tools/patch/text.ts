/**
 * A text file as lines, remembering how it was written so that writing it back changes only
 * what the patch changed: line endings per line, the final newline, a byte order mark.
 */
export interface TextFile {
  /** Lines without their terminators. */
  lines: string[]
  /** Whether each line ends with CRLF (the last line too, for when a newline is added after it). */
  cr: boolean[]
  /** The ending most lines use; new lines get it. */
  crlf: boolean
  finalNewline: boolean
  bom: boolean
}

export function splitText(text: string): TextFile {
  const bom = text.startsWith("\uFEFF")
  if (bom) text = text.slice(1)
  if (text === "") return { lines: [], cr: [], crlf: false, finalNewline: false, bom }
  const lines = text.split("\n")
  const finalNewline = lines[lines.length - 1] === ""
  if (finalNewline) lines.pop()
  const cr = new Array<boolean>(lines.length)
  let crCount = 0
  const terminated = finalNewline ? lines.length : lines.length - 1
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    const isCr = i < terminated && line.endsWith("\r")
    if (isCr) {
      lines[i] = line.slice(0, -1)
      crCount++
    }
    cr[i] = isCr
  }
  const crlf = crCount * 2 > terminated
  if (!finalNewline) cr[lines.length - 1] = crlf
  return { lines, cr, crlf, finalNewline, bom }
}

export function joinText(file: TextFile): string {
  const { lines, cr } = file
  if (lines.length === 0) return file.bom ? "\uFEFF" : ""
  const parts = new Array<string>(lines.length)
  const last = lines.length - 1
  for (let i = 0; i < lines.length; i++) {
    const ending = i < last || file.finalNewline ? (cr[i] ? "\r\n" : "\n") : ""
    parts[i] = lines[i]! + ending
  }
  return (file.bom ? "\uFEFF" : "") + parts.join("")
}
