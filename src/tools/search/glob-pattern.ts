// Glob patterns compiled to regular expressions over `/`-separated relative paths. One compiler
// serves the glob tool, rg's `glob` filter and .gitignore lines, so the built-in search selects
// exactly the files ripgrep would.
//
// Hand-written, not Bun.Glob, picomatch 4.0 or ignore 7.0 (each tried behind these functions;
// scripts/bench-libs.ts). On the 29 tests that compare with the rg binary (glob, search,
// search-parity, search-cli) and 1,800 random queries over trees with odd names and ignore lines,
// this module and Bun.Glob select what rg selects. picomatch fails 2 tests and 387 queries: its
// `src/**` also matches `src`. ignore fails 3 tests and 591 queries: it has no `{a,b}`, and it
// applies git's "no re-include under an excluded directory" to rg globs. Bun.Glob reads `\b` `\n`
// `\r` `\t` as control characters and `[a\-z]` as three characters, and its `?` matches an emoji;
// rg and this module read the letters and a range and do not match the emoji (the last
// search-parity test, which Bun.Glob fails). A wrapper would have to re-parse each glob. Bun.Glob
// adds nothing to the binary and matched 2.6x faster until lines without `/` were matched against
// the name alone; now both take 4-7 ms for 11,066 paths. picomatch adds 88 KiB to dist/clanka,
// ignore 40 KiB. Known gap: rg's `?` and `[...]` match a byte, so `?` does not match `ä` in rg
// but does here (and in Bun.Glob).

const regexSpecial = /[.*+?^${}()|[\]\\/]/g

function escapeRegex(text: string): string {
  return text.replace(regexSpecial, "\\$&")
}

/** Compiles one glob to the source of a regex (no anchors). `*` and `?` never cross a `/`. */
export function globSource(glob: string): string {
  let out = ""
  let i = 0
  while (i < glob.length) {
    const c = glob[i]!
    if (c === "\\" && i + 1 < glob.length) {
      out += escapeRegex(glob[i + 1]!)
      i += 2
    } else if (c === "*") {
      let j = i
      while (glob[j] === "*") j++
      const starts = i === 0 || glob[i - 1] === "/"
      const ends = j === glob.length || glob[j] === "/"
      if (j - i >= 2 && starts && ends) {
        // `**` as a whole segment: any number of directories.
        if (j === glob.length) out += ".*"
        else {
          out += "(?:[^/]*/)*"
          j++ // the `/` after `**` is part of the optional group
        }
      } else out += "[^/]*"
      i = j
    } else if (c === "?") {
      out += "[^/]"
      i++
    } else if (c === "[") {
      const end = classEnd(glob, i)
      if (end < 0) {
        out += "\\["
        i++
        continue
      }
      let body = glob.slice(i + 1, end)
      let negate = false
      if (body[0] === "!" || body[0] === "^") {
        negate = true
        body = body.slice(1)
      }
      body = body.replace(/\\(.)/g, "$1").replace(/[\\\]^]/g, "\\$&")
      out += negate ? `[^/${body}]` : `[${body}]`
      i = end + 1
    } else if (c === "{") {
      const end = braceEnd(glob, i)
      if (end < 0) {
        out += "\\{"
        i++
        continue
      }
      const alternatives = splitAlternatives(glob.slice(i + 1, end))
      out += `(?:${alternatives.map(globSource).join("|")})`
      i = end + 1
    } else {
      out += escapeRegex(c)
      i++
    }
  }
  return out
}

/** Index of the `]` closing the class that opens at `start`, or -1. */
function classEnd(glob: string, start: number): number {
  let i = start + 1
  if (glob[i] === "!" || glob[i] === "^") i++
  if (glob[i] === "]") i++ // a leading `]` is literal
  for (; i < glob.length; i++) {
    if (glob[i] === "\\") i++
    else if (glob[i] === "]") return i
  }
  return -1
}

function braceEnd(glob: string, start: number): number {
  let depth = 0
  for (let i = start; i < glob.length; i++) {
    const c = glob[i]
    if (c === "\\") i++
    else if (c === "{") depth++
    else if (c === "}" && --depth === 0) return i
  }
  return -1
}

function splitAlternatives(body: string): string[] {
  const parts: string[] = []
  let depth = 0
  let current = ""
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (c === "\\") {
      current += c + (body[i + 1] ?? "")
      i++
      continue
    }
    if (c === "{") depth++
    if (c === "}") depth--
    if (c === "," && depth === 0) {
      parts.push(current)
      current = ""
    } else current += c
  }
  parts.push(current)
  return parts
}

/** A glob matched against whole relative paths (`src/*.ts` matches `src/a.ts`, not `src/x/a.ts`). */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${globSource(glob)}$`)
}

/** True when the glob holds no wildcard, class or brace: it names one path. */
export function isLiteralGlob(segment: string): boolean {
  return !/[*?[{\\]/.test(segment)
}

/** One line of an ignore file (or one rg `glob`), ready to match. */
export interface IgnoreRule {
  regex: RegExp
  /** No `/` in the pattern: `regex` is matched against the last segment of the path only. */
  basename: boolean
  /** `!pattern`: re-includes what an earlier line excluded. */
  negate: boolean
  /** `pattern/`: matches directories only. */
  dirOnly: boolean
}

/**
 * Parses one gitignore-format line. A pattern without an inner `/` matches at any depth; one with
 * a `/` is anchored to the directory of the file that holds it.
 */
export function parseIgnoreLine(raw: string): IgnoreRule | undefined {
  let line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
  if (line === "" || line.startsWith("#")) return undefined
  // Trailing spaces are dropped unless escaped with a backslash.
  line = line.replace(/(?<!\\)\s+$/, "")
  if (line === "") return undefined
  let negate = false
  if (line.startsWith("!")) {
    negate = true
    line = line.slice(1)
  } else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1)
  let dirOnly = false
  if (line.endsWith("/") && !line.endsWith("\\/")) {
    dirOnly = true
    line = line.slice(0, -1)
  }
  if (line === "") return undefined
  // Without a `/` the glob cannot match one (`**` alone matches anything), so "at any depth" is
  // "the last segment": matching the name alone is 2.2-2.6x faster than `^(?:[^/]*/)*glob$`.
  const basename = !line.includes("/")
  const regex = new RegExp(`^${globSource(line.startsWith("/") ? line.slice(1) : line)}$`)
  return { regex, basename, negate, dirOnly }
}

export function parseIgnoreFile(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = []
  for (const line of text.split("\n")) {
    const rule = parseIgnoreLine(line)
    if (rule) rules.push(rule)
  }
  return rules
}

export type Verdict = "ignore" | "whitelist" | "none"

/** The last rule that matches decides, as in git. */
export function matchRules(rules: readonly IgnoreRule[], path: string, isDir: boolean): Verdict {
  const name = path.slice(path.lastIndexOf("/") + 1)
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!
    if (rule.dirOnly && !isDir) continue
    if (rule.regex.test(rule.basename ? name : path)) return rule.negate ? "whitelist" : "ignore"
  }
  return "none"
}
