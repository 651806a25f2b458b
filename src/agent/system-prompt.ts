import type { Environment, InstructionsFile, SandboxMode, SkillSummary } from "../contract.ts"
import { environmentSection, instructionsOf, instructionsSection, skillsOf, skillsSection } from "./prompt-context.ts"
import type { UserContext } from "./user-context.ts"

/** What the prompt is built from: an executor's capabilities (those fields), and the run's options. */
interface SystemPromptOptions {
  toolsDts: string
  directory: string
  /** An older executor's AGENTS.md, when it sends no `instructionsFiles`. */
  agentsMd?: string | null
  instructionsFiles?: InstructionsFile[] | undefined
  skills?: SkillSummary[] | undefined
  environment?: Environment | undefined
  sandbox?: { mode: SandboxMode; network: boolean } | undefined
  /** The user's own AGENTS.md and skills (agent side). */
  user?: UserContext | undefined
  /** Conversation mode: answering in text ends a turn; taskComplete is not needed. */
  conversation?: boolean
  /** A sub-agent: asked not to delegate again. */
  subagent?: boolean
  /** JSON Schema the final result must match (--json-schema). */
  jsonSchema?: unknown
  /** Extra instructions from --system. */
  extra?: string
  /** The section about the run's hosts, when it has several (hosts.ts). */
  hosts?: string
}

const RULES = `You are clanka, a coding agent working in a repository. You act through one tool, \`execute\`, whose input is a JavaScript program. The program runs as the body of an async function in a fresh sandbox: top-level await works, the functions declared below are async globals, and whatever it prints with console.log is all you see of its results.

Rules:
- Print what you need to see; return values are not shown. Print concisely (slices, counts, summaries) rather than whole large files.
- Variables do not persist between executes; re-read what you need.
- There is no require, import, process or Node API; use the declared functions.
- Do several steps in one program when you can; use Promise.all for independent reads.
- Prefer applyPatch for edits to existing files; writeFile for new files.
- Paths are relative to the working directory.
- If a call throws, the error is printed; read it and fix the program.

Working rules:
- Check your work with the project's own tests or build when it has them.
- Keep changes minimal and in the project's style.
- Never revert changes you did not make.
- No commits, pushes or other lasting git actions unless asked.`

// The output is what this program prints with the real tools (test/agent/system-prompt.test.ts
// runs it): rg groups matches under a path line, one "line:text" row each.
const EXAMPLE = `Example program:
\`\`\`js
const [pkg, hits] = await Promise.all([readFile({ path: "package.json" }), rg({ pattern: "TODO", maxLines: 5 })])
console.log(JSON.parse(pkg).name)
console.log(hits)
\`\`\`

Its output:
\`\`\`
my-app
src/main.ts
12:  // TODO: handle errors

src/util.ts
4:// TODO: add tests
\`\`\``

function finishRule(options: SystemPromptOptions): string {
  if (options.jsonSchema !== undefined) {
    return `When everything is done, call taskComplete with JSON text (JSON.stringify of the value) that matches this JSON Schema; it is validated and you are told what to fix:\n${JSON.stringify(options.jsonSchema)}`
  }
  if (options.conversation) {
    return "This is a conversation: answer the user in plain text when you are done with their request; taskComplete is not needed."
  }
  return "Work until the task is done, then call taskComplete(summary) with a short summary for the user. Call it only when everything is done; the run ends after that program."
}

/** Told to sub-agents: they do the task themselves instead of delegating again. */
export const SUBAGENT_NOTE =
  "You are a sub-agent started by another agent: do the task yourself and do not call delegate. Your taskComplete summary is returned to that agent."

/**
 * SPEC section 7: rules of code mode, one example, the declarations; then what changes from run to
 * run (last, so the fixed part stays a cacheable prefix): the directory and its machine, skills,
 * the instructions files.
 */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  const sections = [RULES, EXAMPLE, finishRule(options)]
  if (options.subagent) {
    sections.push(SUBAGENT_NOTE)
  }
  sections.push(`Sandbox functions:\n${options.toolsDts.trim()}`)
  if (options.hosts) sections.push(options.hosts)
  sections.push(`Working directory: ${options.directory}`)
  sections.push(environmentSection(options.directory, options.environment, options.sandbox))
  if (options.extra?.trim()) sections.push(options.extra.trim())
  sections.push(skillsSection(skillsOf(options, options.user)))
  sections.push(instructionsSection(instructionsOf(options, options.user)))
  return sections.filter(Boolean).join("\n\n")
}

/** The sandbox function names, read from the declarations (works for remote executors too). */
export function toolNamesFromDts(toolsDts: string): string[] {
  // exec() in a loop: matchAll's iterator costs a fresh process ~0.3 ms more, on the way to the
  // first script.
  const names: string[] = []
  const declaration = /declare function (\w+)/g
  for (let match = declaration.exec(toolsDts); match; match = declaration.exec(toolsDts)) names.push(match[1]!)
  // MCP servers' tools live under one global object (`declare const mcp: {…}`).
  return /^declare const mcp: /m.test(toolsDts) ? [...names, "mcp"] : names
}
