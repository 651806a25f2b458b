/**
 * The help, fitted to the terminal: `clanka help` (and --help), `clanka help COMMAND` (and
 * `clanka COMMAND --help`). Rows are a term and a description whose lines wrap under their own
 * column; a term too long for the column sits on its own line. Every flag states its default once.
 * Reads only commands.ts and help-text.ts: no command module is loaded to print its help.
 */
import { VERSION } from "../version.ts"
import { type CommandSpec, commands } from "./commands.ts"
import { type Block, runSections, type Section, topLevelSections } from "./help-text.ts"
import { conversationKeys } from "./slash-commands.ts"

export interface HelpStyle {
  /** Columns to fit: $COLUMNS, else the terminal's; 80 when neither is known (stdout is not a terminal). */
  width: number
  /** Bold headings (a terminal without NO_COLOR). */
  color: boolean
}

const DESCRIPTION = "a coding agent in code mode; the model writes JavaScript that calls the tools."
/** Spaces before a row's term, and between the term column and the description. */
const INDENT = 2
const GAP = 4
/** Below this many columns the layout stops shrinking (lines may then pass the width). */
const NARROWEST = 40

export function topLevelHelp(style: HelpStyle): string {
  const names = Object.values(commands).map((spec): [string, string] => [spec.meta.name, spec.meta.description])
  const sections: Section[] = [{ title: "COMMANDS", blocks: [{ rows: names }] }, ...topLevelSections]
  return render([`clanka ${VERSION}: ${DESCRIPTION}`, "", "USAGE clanka COMMAND [OPTIONS]"], sections, style)
}

export function commandHelp(name: string, style: HelpStyle): string {
  const spec = commands[name]!
  const { positionals, flags } = argumentRows(spec)
  const usage = ["USAGE clanka", name, ...(flags.length > 0 ? ["[OPTIONS]"] : []), ...positionals.map(([, , usage]) => usage)].join(" ")
  const sections: Section[] = [
    ...(positionals.length > 0 ? [{ title: "ARGUMENTS", blocks: [{ rows: positionals.map(([term, text]): [string, string] => [term, text]) }] }] : []),
    ...(flags.length > 0 ? [{ title: "OPTIONS", blocks: [{ rows: flags }] }] : []),
    ...(name === "run" ? runSections : []),
  ]
  return render([spec.meta.description, "", usage], sections, style)
}

/** What /help prints in conversation mode. */
export function conversationHelp(width: number): string {
  return ["Commands and keys:", ...renderBlock({ rows: conversationKeys }, Math.max(NARROWEST, width))].join("\n") + "\n"
}

/** The rows of a command's positionals (term, description, usage word) and of its flags. */
function argumentRows(spec: CommandSpec): { positionals: Array<[string, string, string]>; flags: Array<[string, string]> } {
  const positionals: Array<[string, string, string]> = []
  const flags: Array<[string, string]> = []
  for (const [name, def] of Object.entries(spec.args)) {
    if (def.type === "positional") {
      const word = name.toUpperCase()
      positionals.push([word, def.description ?? "", def.required ? `<${word}>` : `[${word}]`])
      continue
    }
    // Short flags first, then long ones; a row without a short flag keeps the long ones aligned.
    let short = ""
    let long = ""
    for (const alias of [(def as { alias?: string | string[] }).alias ?? []].flat()) {
      if (alias.length === 1) short += `-${alias}, `
      else long += `--${alias}, `
    }
    long += `--${name}`
    const value = def.type === "string" ? `=<${def.valueHint ?? name.toUpperCase()}>` : ""
    flags.push([`${short || "    "}${long}${value}`, withDefault(def.description ?? "", def)])
    if (def.type === "boolean" && (def.default === true || def.negativeDescription)) {
      flags.push([`    --no-${name}`, def.negativeDescription ?? `the opposite of --${name}`])
    }
  }
  return { positionals, flags }
}

/** The description and the flag's default, unless the description already says it. */
function withDefault(description: string, def: { type?: string; default?: unknown }): string {
  if (def.default === undefined || description.includes("default")) return description
  if (def.type === "boolean") return def.default === true ? `${description} (the default)` : description
  return `${description} (default ${String(def.default)})`
}

function render(head: string[], sections: Section[], style: HelpStyle): string {
  const width = Math.max(NARROWEST, style.width)
  let out = ""
  for (const line of head) out += line ? wrap(line, width).join("\n") + "\n" : "\n"
  for (const section of sections) {
    // A heading wraps too: "CONVERSATION (no prompt on a terminal: …)" is longer than 60 columns.
    for (const [index, line] of wrap(section.title, width).entries()) out += (index === 0 ? "\n" : "") + (style.color ? `\x1b[1m${line}\x1b[22m` : line) + "\n"
    for (const block of section.blocks) out += "\n" + renderBlock(block, width).join("\n") + "\n"
  }
  return out
}

// Plain loops, not map and spread: the help runs once, cold, where each call costs.
function renderBlock(block: Block, width: number): string[] {
  const lines: string[] = []
  if ("text" in block) {
    for (const line of wrap(block.text, width - INDENT)) lines.push(" ".repeat(INDENT) + line)
    return lines
  }
  // The term column fits the longest term, but takes at most 40% of the width: a longer term sits
  // on its own line and its description starts on the next.
  const most = Math.floor(width * 0.4)
  let longest = 0
  for (const [term] of block.rows) if (term.length <= most && term.length > longest) longest = term.length
  const column = INDENT + longest + GAP
  const under = " ".repeat(column)
  for (const [term, description] of block.rows) {
    const text = wrap(description, width - column)
    const first = " ".repeat(INDENT) + term
    let next = 0
    if (first.length + GAP > column || text.length === 0) lines.push(first)
    else lines.push(first + " ".repeat(column - first.length) + text[next++])
    for (; next < text.length; next++) lines.push(under + text[next])
  }
  return lines
}

/**
 * Greedy word wrap to `width` columns at spaces; a word longer than a line is cut. Indexes rather
 * than a split, for the same reason.
 */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let start = 0
  while (start < text.length) {
    while (text.charCodeAt(start) === 32) start++
    if (start >= text.length) break
    if (text.length - start <= width) {
      lines.push(text.slice(start).trimEnd())
      break
    }
    // The last space that lets the line fit; none: cut the word.
    const space = text.lastIndexOf(" ", start + width)
    const end = space > start ? space : start + width
    lines.push(text.slice(start, end).trimEnd())
    start = end
  }
  return lines
}
