// Where a broken script holds text the model meant literally, and which backticks could end it.
// The texts are the template literals handed to applyPatch, taskComplete and a `content:`
// property, the values of an object keyed by file paths ({ ".changeset/x.md": `…` }), and
// variables later handed to one of those; each may be tagged String.raw and continued by
// concatenation (String.raw`… ` + "`Name`" + String.raw` …`). repair.ts chooses the ends.

import { parses } from "./parses.ts"
import { templateEnd } from "./template-text.ts"

/** A template literal whose content is raw text the model meant literally. */
export interface Target {
  /** Where what names it starts (`applyPatch`, `writeFile`, `const`, a key, the `+` before it). */
  anchor: number
  /** Where its `String.raw` tag starts; `open` when it has none. */
  tag: number
  /** Index of the opening backtick. */
  open: number
  /** Tagged String.raw: the model typed every backslash as part of the text, even on one line. */
  raw: boolean
  /** Matches, at the character after a closing backtick, what must follow it. */
  closer: RegExp
  /** The closing backtick comes before this index (the use of a variable, the next target). */
  limit: number
  /** Indexes of the backticks that could close it, in order. */
  candidates: number[]
}

const STRING = String.raw`"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'`
// What may follow a template's closing backtick: the end of the call, property or statement, a
// method called on the text (`…`.trim()), or a `+` leading, through quoted strings, to the next
// String.raw piece of the same text.
const METHOD_CALL = String.raw`\s*\.\s*[A-Za-z_$][\w$]*\s*\(`
const CONTINUED = String.raw`\s*\+(?=(?:\s*(?:${STRING})\s*\+)*\s*String\.raw\s*\`)`
/** A closing backtick, `+ "quoted" +` pieces, then the `+` and the String.raw piece it joins. */
const CONTINUATION = new RegExp(String.raw`\`((?:\s*\+\s*(?:${STRING}))*\s*)\+\s*String\.raw\s*\``, "g")
const closer = (end: string) => new RegExp(`${end}|${METHOD_CALL}|${CONTINUED}`, "y")
const AFTER_CALL_ARGUMENT = closer(String.raw`\s*(?:,\s*)?\)`)
const AFTER_PROPERTY = closer(String.raw`\s*[,}]`)
const AFTER_ASSIGNMENT = closer(String.raw`[ \t]*(?:;|\r?\n|$)`)

/** The opening of a template, tagged String.raw or not. */
const OPENING = "(?:String\\.raw\\s*)?`"
/** `{ path: "x", ` or `{ path: \`${dir}/x\`, ` before the content property. */
const OBJECT_PREFIX = "\\{(?:[^`{}]|`[^`]*`)*?"
const CONTENT_KEY = `(?:\\bwriteFile\\s*\\(\\s*)?${OBJECT_PREFIX}\\bcontent\\s*`
/** A quoted key that names a file: it holds a `.` or a `/` (".changeset/x.md", "README.md"). */
const PATH_KEY = String.raw`(?<=[{,]\s*)(?:"[^"\n]*[./][^"\n]*"|'[^'\n]*[./][^'\n]*')\s*`
/** `header + "\n" + ` before a variable used in a concatenation. */
const PIECE = String.raw`(?:[\w$.]+(?:\([^()\n]*\))?|${STRING})\s*\+\s*`

type Found = Omit<Target, "limit" | "candidates"> & { use?: number }

/**
 * The templates to repair, in order. Each ends before the next one starts, unless `overlapping`:
 * then a template may run over later ones, as the text of a doc showing a script does.
 */
export function findTargets(script: string, overlapping: boolean): Target[] {
  const found: Found[] = []
  const add = (match: RegExpMatchArray, closer: RegExp, anchor = match.index!, use?: number) => {
    const open = match.index! + match[0].length - 1
    const tagged = /String\.raw\s*`$/.exec(match[0])
    if (found.some((target) => target.open === open)) return
    found.push({ anchor, tag: tagged ? match.index! + tagged.index : open, open, raw: tagged !== null, closer, use })
  }
  for (const match of script.matchAll(new RegExp(`\\b(?:applyPatch|taskComplete)\\s*\\(\\s*${OPENING}`, "g"))) {
    add(match, AFTER_CALL_ARGUMENT)
  }
  for (const match of script.matchAll(new RegExp(`${CONTENT_KEY}:\\s*${OPENING}`, "g"))) add(match, AFTER_PROPERTY)
  for (const match of script.matchAll(new RegExp(`${PATH_KEY}:\\s*${OPENING}`, "g"))) add(match, AFTER_PROPERTY)
  for (const match of script.matchAll(new RegExp(`\\b(?:const|let|var)\\s+([A-Za-z_$][\\w$]*)\\s*=\\s*${OPENING}`, "g"))) {
    const use = findUse(script, match[1]!, match.index + match[0].length)
    if (use !== -1) add(match, AFTER_ASSIGNMENT, match.index, use)
  }
  // A String.raw piece joined by `+` to a template (through quoted strings) continues the text of
  // the target before it.
  for (const match of script.matchAll(CONTINUATION)) {
    const plus = match.index + 1 + match[1]!.length
    const head = found.filter((target) => target.open < match.index).sort((a, b) => b.open - a.open)[0]
    if (head && (head.use === undefined || plus < head.use)) add(match, head.closer, plus, head.use)
  }
  found.sort((a, b) => a.open - b.open)
  return found.map(({ use, ...target }, i) => {
    const next = overlapping ? script.length : (found[i + 1]?.anchor ?? script.length)
    const limit = Math.min(use ?? script.length, next)
    return { ...target, limit, candidates: closingCandidates(script, target, limit) }
  })
}

/** Where the variable is handed to one of the repaired calls or properties, or -1. */
function findUse(script: string, name: string, from: number): number {
  const id = `(?:${PIECE})*${name.replace(/\$/g, "\\$")}(?![\\w$])`
  const shorthand = name === "content" ? "|[,}]" : ""
  const use = new RegExp(
    `\\b(?:applyPatch|taskComplete)\\s*\\(\\s*${id}|${CONTENT_KEY}(?::\\s*${id}${shorthand})|${PATH_KEY}:\\s*${id}`,
    "g",
  )
  use.lastIndex = from
  return use.exec(script)?.index ?? -1
}

/**
 * Backticks in (open, limit) that no backslash precedes (after `\\`` too the model meant a literal
 * backtick) and that are followed by what closes the template, up to the one that ends a
 * well-formed template: a template that is fine never gets extended over the code that follows
 * it, which may have a problem of its own.
 */
function closingCandidates(script: string, target: Omit<Target, "limit" | "candidates">, limit: number): number[] {
  const { open, closer } = target
  const candidates: number[] = []
  const end = templateEnd(script, open)
  for (let i = script.indexOf("`", open + 1); i !== -1 && i < limit; i = script.indexOf("`", i + 1)) {
    if (script[i - 1] === "\\" && i !== end) continue
    closer.lastIndex = i + 1
    if (!closer.test(script)) continue
    candidates.push(i)
    if (i === end && parses(`(${script.slice(target.tag, i + 1)})`)) break
  }
  return candidates
}
