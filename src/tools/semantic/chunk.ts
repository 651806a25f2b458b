// Splits a file into the chunks search answers with: at declaration boundaries for the common
// languages, at headings for Markdown, in windows at blank lines for anything else. A declaration
// keeps the comments and decorators right above it. Chunks stay within MAX_LINES / MAX_CHARS (a
// long class is split again at its members); runs of tiny pieces (imports, one-line constants) are
// merged so that a chunk carries enough words to be found.

export interface Chunk {
  /** 1-based, inclusive. */
  start: number
  end: number
  /** Names declared in the chunk (functions, classes, headings …), outermost first. */
  symbols: string[]
  text: string
}

export const MAX_LINES = 80
export const MAX_CHARS = 4000
const MIN_LINES = 6

interface Boundary {
  line: number // 0-based
  indent: number
  name: string
}

type Matcher = (line: string) => string | undefined

/** Returns the first capture group that matched, so one regex can list several declaration forms. */
function by(regex: RegExp): Matcher {
  return (line) => {
    const match = regex.exec(line)
    if (!match) return undefined
    for (let i = 1; i < match.length; i++) if (match[i] !== undefined) return match[i]
    return undefined
  }
}

const CONTROL = new Set(["if", "for", "while", "switch", "catch", "return", "else", "do", "try", "with", "function", "new", "typeof", "await", "sizeof", "foreach", "using", "lock", "elif", "until", "unless", "case", "when"])
/** Matches a declaration unless the captured name is a control keyword (`if (…) {` looks like a method). */
function notControl(matcher: Matcher): Matcher {
  return (line) => {
    const name = matcher(line)
    return name === undefined || CONTROL.has(name) ? undefined : name
  }
}

const JS = notControl(
  by(
    /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\s*\*?|class|interface|type|enum|namespace|module)\s+([A-Za-z_$][\w$]*)|^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=\s*(?:async\s+)?(?:function|\(|[A-Za-z_$][\w$]*\s*=>|class\b|\{|\[|new\b|[A-Za-z_$][\w$.]*\()|^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=|^\s+(?:(?:public|private|protected|static|readonly|abstract|override|async|get|set)\s+)*\*?(#?[A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\([^)]*\)?\s*(?::\s*[^={]+)?\{\s*$|^\s*([A-Za-z_$][\w$.]*)\s*=\s*(?:async\s+)?function\b/,
  ),
)
const PYTHON = by(/^\s*(?:async\s+)?def\s+(\w+)|^\s*class\s+(\w+)|^([A-Z_][A-Z0-9_]*)\s*=/)
const GO = by(/^func\s+(?:\([^)]*\)\s*)?(\w+)|^type\s+(\w+)|^(?:var|const)\s+(\w+)/)
const RUST = by(
  /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+|async\s+|unsafe\s+|extern\s+"[^"]*"\s+)*(?:fn|struct|enum|trait|union|mod|type|static|const|macro_rules!)\s+(\w+)|^\s*impl(?:<[^>]*>)?\s+(?:[\w:<>, ]+\s+for\s+)?([\w:]+)/,
)
const JAVA_LIKE = notControl(
  by(
    /^\s*(?:(?:public|private|protected|internal|static|final|abstract|sealed|partial|readonly|unsafe|virtual|override|async|synchronized|native|default|new)\s+)*(?:class|interface|enum|record|struct|@interface)\s+(\w+)|^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|protected|internal|static|final|abstract|sealed|virtual|override|async|synchronized|native|default|extern|unsafe)\s+)+[\w<>\[\],.?\s]*?\s(\w+)\s*\(|^\s+[\w<>\[\],.?]+\s+(\w+)\s*\([^;]*\)\s*(?:throws [\w., ]+)?\{?\s*$/,
  ),
)
const C_LIKE = notControl(
  by(
    /^(?:template\s*<[^>]*>\s*)?(?:typedef\s+)?(?:struct|class|union|enum|namespace)\s+(\w+)|^#define\s+(\w+)|^[A-Za-z_][\w\s\*&:<>,]*?[\s\*&]((?:\w+::)*~?\w+)\s*\([^;]*$|^\s+(?:virtual\s+|static\s+|inline\s+)*[\w:<>\*&]+\s+[\*&]?(~?\w+)\s*\([^;]*\)\s*(?:const\s*)?(?:override\s*)?\{\s*$/,
  ),
)
const RUBY = by(/^\s*def\s+(?:self\.)?([\w?!=]+)|^\s*(?:class|module)\s+([\w:]+)/)
const PHP = by(/^\s*(?:(?:public|private|protected|static|abstract|final)\s+)*function\s+&?(\w+)|^\s*(?:(?:abstract|final|readonly)\s+)*(?:class|interface|trait|enum)\s+(\w+)/)
const SHELL = by(/^\s*function\s+([\w:.-]+)|^\s*([\w:.-]+)\s*\(\)\s*\{?/)
const MARKDOWN = by(/^#{1,6}\s+(.+?)\s*#*\s*$/)

const LANGUAGES: Record<string, Matcher> = {}
const register = (matcher: Matcher, extensions: string) => {
  for (const ext of extensions.split(" ")) LANGUAGES[ext] = matcher
}
register(JS, "ts tsx js jsx mjs cjs mts cts vue svelte")
register(PYTHON, "py pyi")
register(GO, "go")
register(RUST, "rs")
register(JAVA_LIKE, "java cs kt kts scala groovy dart swift")
register(C_LIKE, "c h cc cpp cxx hpp hh hxx m mm")
register(RUBY, "rb rake")
register(PHP, "php")
register(SHELL, "sh bash zsh ksh")
register(MARKDOWN, "md markdown mdx")

const COMMENT_ABOVE = /^\s*(?:\/\/|\/\*|\*|#(?![#!]?\s*(?:include|define|if|endif|else|pragma))|@|--|;|'''|""")/

function extensionOf(relPath: string): string {
  const base = relPath.slice(relPath.lastIndexOf("/") + 1)
  if (/^(?:Makefile|Dockerfile|Gemfile|Rakefile)$/.test(base)) return base === "Gemfile" || base === "Rakefile" ? "rb" : ""
  const dot = base.lastIndexOf(".")
  return dot <= 0 ? "" : base.slice(dot + 1).toLowerCase()
}

function indentOf(line: string): number {
  let width = 0
  for (const char of line) {
    if (char === " ") width++
    else if (char === "\t") width += 4
    else break
  }
  return width
}

/** The chunks of one file. */
export function chunkFile(relPath: string, text: string): Chunk[] {
  const lines = text.split("\n")
  if (lines.length > 1 && lines.at(-1) === "") lines.pop()
  if (lines.length === 0) return []
  const matcher = LANGUAGES[extensionOf(relPath)]
  const markdown = matcher === MARKDOWN
  const boundaries: Boundary[] = []
  if (matcher) {
    let fence = false
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!
      if (markdown && /^\s*(```|~~~)/.test(line)) fence = !fence
      if (fence || line.length > 400) continue
      const name = matcher(line)
      if (name === undefined) continue
      // Markdown: deeper headings nest, like deeper indentation.
      const indent = markdown ? line.indexOf(" ") : indentOf(line)
      let start = i
      if (!markdown) while (start > 0 && COMMENT_ABOVE.test(lines[start - 1]!) && indentOf(lines[start - 1]!) >= indent - 1) start--
      const previous = boundaries.at(-1)
      if (previous && previous.line >= start) start = i
      boundaries.push({ line: start, indent, name: markdown ? name.slice(0, 80) : name })
    }
  }
  const pieces: Array<{ from: number; to: number }> = []
  split(lines, 0, lines.length, boundaries, pieces, true)
  return merge(lines, pieces, boundaries)
}

/**
 * Splits lines[from, to) at the outermost boundaries inside it (the whole file always, a piece
 * only when it is too big).
 */
function split(lines: string[], from: number, to: number, boundaries: Boundary[], out: Array<{ from: number; to: number }>, whole = false): void {
  const inside = boundaries.filter((b) => b.line > from && b.line < to)
  if (!whole && fits(lines, from, to)) {
    out.push({ from, to })
    return
  }
  if (inside.length === 0) return fits(lines, from, to) ? void out.push({ from, to }) : window(lines, from, to, out)
  const outer = Math.min(...inside.map((b) => b.indent))
  const cuts = [from, ...inside.filter((b) => b.indent === outer).map((b) => b.line), to]
  for (let i = 0; i + 1 < cuts.length; i++) {
    const a = cuts[i]!
    const b = cuts[i + 1]!
    if (b > a) split(lines, a, b, boundaries, out)
  }
}

function fits(lines: string[], from: number, to: number): boolean {
  if (to - from > MAX_LINES) return false
  let chars = 0
  for (let i = from; i < to; i++) chars += lines[i]!.length + 1
  return chars <= MAX_CHARS
}

/** Windows of at most MAX_LINES / MAX_CHARS, ending at a blank line where one is near. */
function window(lines: string[], from: number, to: number, out: Array<{ from: number; to: number }>): void {
  let start = from
  while (start < to) {
    let end = start
    let chars = 0
    while (end < to && end - start < MAX_LINES && (chars + lines[end]!.length + 1 <= MAX_CHARS || end === start)) {
      chars += lines[end]!.length + 1
      end++
    }
    if (end < to) {
      // Back up to a blank line in the last third, so a window does not end mid-statement.
      for (let i = end - 1; i > start + ((end - start) * 2) / 3; i--) {
        if (lines[i]!.trim() === "") {
          end = i + 1
          break
        }
      }
    }
    out.push({ from: start, to: end })
    start = end
  }
}

/** Joins runs of small neighbours while the sum still fits; names each chunk's symbols. */
function merge(lines: string[], pieces: Array<{ from: number; to: number }>, boundaries: Boundary[]): Chunk[] {
  const merged: Array<{ from: number; to: number }> = []
  for (const piece of pieces) {
    const last = merged.at(-1)
    if (last && (last.to - last.from < MIN_LINES || piece.to - piece.from < MIN_LINES) && fits(lines, last.from, piece.to) && piece.to - last.from <= MAX_LINES / 2) {
      last.to = piece.to
    } else merged.push({ ...piece })
  }
  const chunks: Chunk[] = []
  for (const { from, to: cut } of merged) {
    // Blank lines between declarations belong to neither: the range ends at the last code line.
    let to = cut
    while (to > from + 1 && lines[to - 1]!.trim() === "") to--
    const text = lines.slice(from, to).join("\n")
    if (text.trim() === "") continue
    const symbols = boundaries.filter((b) => b.line >= from && b.line < to).map((b) => b.name)
    // A piece cut from inside a declaration belongs to the declaration around it.
    if (symbols.length === 0) {
      const around = boundaries.filter((b) => b.line < from).at(-1)
      if (around) symbols.push(around.name)
    }
    chunks.push({ start: from + 1, end: to, symbols: [...new Set(symbols)], text })
  }
  return chunks
}
