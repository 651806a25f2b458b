// Script repair (SPEC sections 5 and 7). Models often write raw text into template literals:
// a patch of TypeScript with its own `template ${literals}`, a markdown summary with `code`
// spans, a shell script with ${VARS}. The first stray backtick ends the template early and the
// script no longer parses. Repair finds the templates handed to applyPatch, taskComplete and
// writeFile's content, picks their real closing backtick, and escapes what lies between.

const AsyncFunction = (async () => {}).constructor as new (body: string) => unknown

/** Does the script compile as the body of an async function? Nothing is run. */
export function parses(script: string): boolean {
  return parseError(script) === null
}

/** The message of the SyntaxError the script raises when compiled, or null if it compiles. */
export function parseError(script: string): string | null {
  try {
    new AsyncFunction(script)
    return null
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

const FENCED = /^\s*```[^\n`]*\n([\s\S]*?)\n?```\s*$/
const OPENING_FENCE = /^\s*```[^\n`]*\n/

/**
 * Removes a markdown code fence (```js, ```ts, ``` …) wrapping the whole script, and the
 * whitespace around it. An opening fence whose closing one is missing (a cut-off answer) goes too.
 * Anything else is returned unchanged.
 */
export function stripFence(script: string): string {
  const fenced = FENCED.exec(script)
  if (fenced) return fenced[1]!
  const opening = OPENING_FENCE.exec(script)
  if (opening && !script.includes("```", opening[0].length)) return script.slice(opening[0].length)
  return script
}

/** A template literal whose content is raw text the model meant literally. */
interface Target {
  /** Where the statement naming it starts (`applyPatch`, `writeFile`, `const`). */
  anchor: number
  /** Index of the opening backtick. */
  open: number
  /** Matches, at the character after a closing backtick, what must follow it. */
  closer: RegExp
  /** The closing backtick comes before this index (the use of a variable, the next target). */
  limit: number
  /** Indexes of the backticks that could close it, in order. */
  candidates: number[]
}

const AFTER_CALL_ARGUMENT = /\s*\)/y
const AFTER_PROPERTY = /\s*[,}]/y
const AFTER_ASSIGNMENT = /[ \t]*(?:;|\r?\n|$)/y

/** `{ path: "x", ` or `{ path: \`${dir}/x\`, ` before the content property. */
const OBJECT_PREFIX = "\\{(?:[^`{}]|`[^`]*`)*?"

function findTargets(script: string): Target[] {
  const found: Omit<Target, "limit" | "candidates">[] = []
  const add = (anchor: number, open: number, closer: RegExp) => {
    if (!found.some((target) => target.open === open)) found.push({ anchor, open, closer })
  }
  for (const match of script.matchAll(/\b(?:applyPatch|taskComplete)\s*\(\s*`/g)) {
    add(match.index, match.index + match[0].length - 1, AFTER_CALL_ARGUMENT)
  }
  for (const match of script.matchAll(new RegExp(`\\bwriteFile\\s*\\(\\s*${OBJECT_PREFIX}\\bcontent\\s*:\\s*\``, "g"))) {
    add(match.index, match.index + match[0].length - 1, AFTER_PROPERTY)
  }
  const limits = new Map<number, number>()
  for (const match of script.matchAll(/\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*`/g)) {
    const open = match.index + match[0].length - 1
    const use = findUse(script, match[1]!, open + 1)
    if (use === -1) continue
    add(match.index, open, AFTER_ASSIGNMENT)
    limits.set(open, use)
  }
  found.sort((a, b) => a.open - b.open)
  return found.map((target, i) => {
    const limit = Math.min(limits.get(target.open) ?? script.length, found[i + 1]?.anchor ?? script.length)
    return { ...target, limit, candidates: closingCandidates(script, target.open, limit, target.closer) }
  })
}

/** Where the variable is handed to one of the repaired calls, or -1. */
function findUse(script: string, name: string, from: number): number {
  const id = name.replace(/\$/g, "\\$")
  const shorthand = name === "content" ? "|[,}]" : ""
  const use = new RegExp(
    `\\b(?:applyPatch|taskComplete)\\s*\\(\\s*${id}(?![\\w$])|\\bwriteFile\\s*\\(\\s*${OBJECT_PREFIX}\\bcontent\\s*(?::\\s*${id}(?![\\w$])${shorthand})`,
    "g",
  )
  use.lastIndex = from
  return use.exec(script)?.index ?? -1
}

/**
 * Backticks in (open, limit) that are not escaped and are followed by what closes the template,
 * up to the one that ends a well-formed template: a template that is fine never gets extended
 * over the code that follows it, which may have a problem of its own.
 */
function closingCandidates(script: string, open: number, limit: number, closer: RegExp): number[] {
  const candidates: number[] = []
  const end = templateEnd(script, open)
  for (let i = script.indexOf("`", open + 1); i !== -1 && i < limit; i = script.indexOf("`", i + 1)) {
    if (isEscaped(script, i)) continue
    closer.lastIndex = i + 1
    if (!closer.test(script)) continue
    candidates.push(i)
    if (i === end && parses(`(${script.slice(open, i + 1)})`)) break
  }
  return candidates
}

/** Index of the backtick closing the template opened at `open`, read as JavaScript would; -1 if none. */
function templateEnd(text: string, open: number): number {
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
function interpolationEnd(text: string, from: number): number {
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

/**
 * Candidates in the order to try them: the earliest first (the last may belong to a later
 * console.log(`…`) and still parse), but those after which an odd number of backticks remain
 * before the limit go last: that odd one out is usually the real end of the template.
 */
function tryOrder(script: string, target: Target): number[] {
  const backticksAfter = (from: number) => {
    let count = 0
    for (let i = script.indexOf("`", from + 1); i !== -1 && i < target.limit; i = script.indexOf("`", i + 1)) {
      if (!isEscaped(script, i)) count++
    }
    return count
  }
  const even: number[] = []
  const odd: number[] = []
  for (const candidate of target.candidates) (backticksAfter(candidate) % 2 === 0 ? even : odd).push(candidate)
  return [...even, ...odd]
}

function isEscaped(text: string, index: number): boolean {
  let backslashes = 0
  while (index - backslashes - 1 >= 0 && text[index - backslashes - 1] === "\\") backslashes++
  return backslashes % 2 === 1
}

/** An escape sequence a template literal rejects (`\x` without two hex digits, `\1`, `\u{zz}` …). */
function isInvalidEscape(text: string, backslash: number): boolean {
  const next = text[backslash + 1] ?? ""
  const rest = text.slice(backslash + 2, backslash + 12)
  if (next === "x") return !/^[0-9a-fA-F]{2}/.test(rest)
  if (next === "u") {
    const braced = /^\{([0-9a-fA-F]+)\}/.exec(rest)
    if (braced) return Number.parseInt(braced[1]!, 16) > 0x10ffff
    return !/^[0-9a-fA-F]{4}/.test(rest)
  }
  if (next === "0") return /^[0-9]/.test(rest)
  return /^[1-9]$/.test(next)
}

/** Makes raw text literal inside a template: escapes backticks, `${` and invalid escapes. */
export function escapeTemplateText(text: string): string {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (char === "\\") {
      if (i + 1 >= text.length || isInvalidEscape(text, i)) {
        out += "\\\\"
      } else {
        out += char + text[i + 1]
        i++
      }
    } else if (char === "`") out += "\\`"
    else if (char === "$" && text[i + 1] === "{") out += "\\$"
    else out += char
  }
  return out
}

/** The script with each target's text, up to its chosen closing backtick, made literal. */
function applyChoices(script: string, targets: Target[], choices: (number | undefined)[]): string {
  let out = ""
  let at = 0
  targets.forEach((target, i) => {
    const close = choices[i]
    if (close === undefined || target.open < at) return
    const template = script.slice(target.open, close + 1)
    // A template that is fine on its own (escaped already, or with real interpolations) stays.
    if (parses(`(${template})`)) return
    out += script.slice(at, target.open + 1) + escapeTemplateText(script.slice(target.open + 1, close)) + "`"
    at = close + 1
  })
  return out + script.slice(at)
}

/**
 * Repairs a script that does not parse: strips a wrapping code fence, then escapes backticks and
 * `${` inside the templates passed to applyPatch(…), taskComplete(…) and writeFile({content}),
 * directly or through a variable. Other templates are left alone. Returns the repaired script if
 * it parses, otherwise the script with only the fence stripped; so repairing twice changes nothing.
 */
export function repairScript(script: string): string {
  const stripped = stripFence(script)
  if (parses(stripped)) return stripped
  const targets = findTargets(stripped).filter((target) => target.candidates.length > 0)
  if (targets.length === 0) return stripped
  // Start from the last candidate of each; then, target by target, take the first closing in
  // tryOrder that makes the whole script parse. A second pass settles earlier targets that
  // could not parse while a later one was still wrong.
  const choices: (number | undefined)[] = targets.map((target) => target.candidates.at(-1))
  const orders = targets.map((target) => tryOrder(stripped, target))
  for (let pass = 0; pass < 2; pass++) {
    targets.forEach((_, i) => {
      for (const candidate of orders[i]!) {
        const trial = choices.slice()
        trial[i] = candidate
        if (parses(applyChoices(stripped, targets, trial))) {
          choices[i] = candidate
          return
        }
      }
    })
    const repaired = applyChoices(stripped, targets, choices)
    if (parses(repaired)) return repaired
  }
  return stripped
}

/**
 * What the sandbox should compile: the script without a wrapping fence (a fenced script can
 * parse as a tagged template and then fail at run time), repaired when it does not parse.
 * `repaired` is false when the script is returned as it came.
 */
export function prepareScript(script: string): { script: string; repaired: boolean } {
  const repaired = parses(script) && !OPENING_FENCE.test(script) ? script : repairScript(script)
  return { script: repaired, repaired: repaired !== script }
}
