// Script repair (SPEC sections 5 and 7). Models often write raw text into template literals:
// a patch of TypeScript with its own `template ${literals}`, a markdown summary with `code`
// spans, a shell script with ${VARS}. The first stray backtick ends the template early and the
// script no longer parses. Repair finds the templates holding such text (repair-targets.ts),
// picks their real closing backtick, and rewrites what lies between so it means the text the
// model meant (template-text.ts).

import { parses } from "./parses.ts"
import { findTargets, type Target } from "./repair-targets.ts"
import { templateSource } from "./template-text.ts"

export { parseError, parses } from "./parses.ts"

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

/**
 * Candidates in the order to try them: the earliest first (the last may belong to a later
 * console.log(`…`) and still parse), but those after which an odd number of backticks remain
 * before the limit go last: that odd one out is usually the real end of the template.
 */
function tryOrder(script: string, target: Target): number[] {
  const backticksAfter = (from: number) => {
    let count = 0
    for (let i = script.indexOf("`", from + 1); i !== -1 && i < target.limit; i = script.indexOf("`", i + 1)) {
      if (script[i - 1] !== "\\") count++
    }
    return count
  }
  const even: number[] = []
  const odd: number[] = []
  for (const candidate of target.candidates) (backticksAfter(candidate) % 2 === 0 ? even : odd).push(candidate)
  return [...even, ...odd]
}

/** `name`, `$x`: the identifier an expression starts with. */
const LEADING_IDENTIFIER = /^\s*([A-Za-z_$][\w$]*)/
const DECLARATION = /\b(?:const|let|var|function)\s+([A-Za-z_$][\w$]*)|\b(?:const|let|var)\s*([{[][^=]*?[}\]])\s*=/g

/**
 * Which `${expressions}` in the target's text stay interpolations: those on a variable the script
 * declares before the target, outside the texts being repaired (`${files.length}` in a summary
 * after `const files = …`). Any other `${` is text (TypeScript or shell the model was writing).
 */
function interpolationKeeper(script: string, target: Target, targets: Target[]): (expression: string) => boolean {
  let code = ""
  let at = 0
  for (const other of targets) {
    if (other.open >= target.anchor) break
    code += script.slice(at, other.open)
    at = Math.min(target.anchor, (other.candidates.at(-1) ?? other.open) + 1)
  }
  code += script.slice(at, target.anchor)
  const names = new Set<string>()
  for (const match of code.matchAll(DECLARATION)) {
    if (match[1]) names.add(match[1])
    else for (const name of match[2]!.matchAll(/[A-Za-z_$][\w$]*/g)) names.add(name[0])
  }
  return (expression) => {
    const name = LEADING_IDENTIFIER.exec(expression)?.[1]
    return name !== undefined && names.has(name) && !/[`\n]/.test(expression) && parses(`(${expression}\n)`)
  }
}

/** The script with each target's text, up to its chosen closing backtick, made literal. */
function applyChoices(
  script: string,
  targets: Target[],
  choices: (number | undefined)[],
  keeps: ((expression: string) => boolean)[],
): string {
  let out = ""
  let at = 0
  targets.forEach((target, i) => {
    const close = choices[i]
    if (close === undefined || target.tag < at) return
    const template = script.slice(target.tag, close + 1)
    // A template that is fine on its own (escaped already, or with real interpolations) stays.
    if (parses(`(${template})`)) return
    // Rewritten, a String.raw text loses its tag: the plain template now spells it exactly.
    const text = templateSource(script.slice(target.open + 1, close), keeps[i], target.raw)
    out += script.slice(at, target.tag) + "`" + text + "`"
    at = close + 1
  })
  return out + script.slice(at)
}

/**
 * Repairs a script that does not parse: strips a wrapping code fence, then makes literal the text
 * of the templates passed to applyPatch(…), taskComplete(…), a `content:` property or a file-path
 * key, directly or through a variable, String.raw or not (see findTargets, templateSource). Other
 * templates are left alone. Returns the repaired script if it parses, otherwise the script with
 * only the fence stripped; so repairing twice changes nothing.
 */
export function repairScript(script: string): string {
  const stripped = stripFence(script)
  if (parses(stripped)) return stripped
  const deadline = performance.now() + REPAIR_BUDGET_MS
  return repairTargets(stripped, findTargets(stripped, false), deadline) ?? repairTargets(stripped, findTargets(stripped, true), deadline) ?? stripped
}

/**
 * How long repair may try. Each try parses the whole script, and the tries grow with the number
 * of templates times their candidate ends: a long script with hundreds of broken templates took
 * longer than the script's time limit (600 s by default) and came back as a time-out, not as the
 * syntax error it is. Real repairs take milliseconds.
 */
const REPAIR_BUDGET_MS = 3_000

/** The script with the targets' texts made literal, if some choice of their ends parses. */
function repairTargets(script: string, found: Target[], deadline: number): string | undefined {
  const targets = found.filter((target) => target.candidates.length > 0)
  if (targets.length === 0 || performance.now() > deadline) return undefined
  // Start from the last candidate of each; then, target by target, take the first closing in
  // tryOrder that makes the whole script parse. A second pass settles earlier targets that
  // could not parse while a later one was still wrong.
  const choices: (number | undefined)[] = targets.map((target) => target.candidates.at(-1))
  const orders = targets.map((target) => tryOrder(script, target))
  const keeps = targets.map((target) => interpolationKeeper(script, target, targets))
  for (let pass = 0; pass < 2; pass++) {
    targets.forEach((_, i) => {
      for (const candidate of orders[i]!) {
        if (performance.now() > deadline) return
        const trial = choices.slice()
        trial[i] = candidate
        if (parses(applyChoices(script, targets, trial, keeps))) {
          choices[i] = candidate
          return
        }
      }
    })
    if (performance.now() > deadline) return undefined
    const repaired = applyChoices(script, targets, choices, keeps)
    if (parses(repaired)) return repaired
  }
  return undefined
}

/**
 * What the sandbox should compile: the script without a wrapping fence (a fenced script can
 * parse as a tagged template and then fail at run time), repaired when it does not parse.
 * `repaired` is false when the script is returned as it came. `firstLine` is the line of the
 * script as written on which the prepared one starts: errors name the lines the model wrote.
 */
export function prepareScript(script: string): { script: string; repaired: boolean; firstLine: number } {
  const repaired = parses(script) && !OPENING_FENCE.test(script) ? script : repairScript(script)
  const fence = stripFence(script) === script ? undefined : OPENING_FENCE.exec(script)?.[0]
  return { script: repaired, repaired: repaired !== script, firstLine: fence === undefined ? 1 : fence.split("\n").length }
}
