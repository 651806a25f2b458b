/**
 * The capabilities an executor on the far side of a pipe announced, held to what a real
 * `clanka executor` sends before they reach the system prompt: a fact is one short line, the
 * instructions files hold at most INSTRUCTIONS_MAX_CHARS together, the lines for the user are
 * few. An executor on another host (or behind `--executor`) may be hostile: without this its
 * "branch" or "shell" could add lines of its own outside the instructions section, and a
 * megabyte of AGENTS.md would go with every model request. Values of a real executor pass as
 * they are.
 */
import type { Capabilities, Environment, InstructionsFile } from "../contract.ts"
import { INSTRUCTIONS_MAX_CHARS } from "./agents-md.ts"

const FACT_MAX_CHARS = 200
const PATH_MAX_CHARS = 4096
const SKILL_DESCRIPTION_MAX_CHARS = 1024
const NOTICES_MAX = 20
/** A real executor's cut file keeps its `[cut: …]` line beyond the budget. */
const CUT_SLACK_CHARS = 256

function short(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** One line of at most `max` characters: control characters (newlines too) become spaces. */
export function oneLine(text: string, max: number): string {
  return short(text.replace(/[\x00-\x1f\x7f-\x9f]/g, " "), max)
}

/** `local`: the agent's own executor, whose directory is this machine's path as it is. */
export function clampCapabilities(caps: Capabilities, local = false): Capabilities {
  const out: Capabilities = { ...caps, version: oneLine(caps.version, FACT_MAX_CHARS) }
  // Shown on the terminal and in the prompt ("Working directory:", the hosts' list).
  if (!local) out.directory = oneLine(caps.directory, PATH_MAX_CHARS)
  if (caps.environment) out.environment = clampEnvironment(caps.environment)
  if (caps.instructionsFiles) out.instructionsFiles = clampInstructions(caps.instructionsFiles)
  if (caps.agentsMd && caps.agentsMd.length > INSTRUCTIONS_MAX_CHARS + CUT_SLACK_CHARS) out.agentsMd = cut(caps.agentsMd, INSTRUCTIONS_MAX_CHARS)
  if (caps.skills) {
    out.skills = caps.skills.map((skill) => ({
      ...skill,
      name: oneLine(skill.name, FACT_MAX_CHARS),
      description: oneLine(skill.description, SKILL_DESCRIPTION_MAX_CHARS),
      path: oneLine(skill.path, PATH_MAX_CHARS),
    }))
  }
  // Lines for the user: shown in caret notation (a newline as ^J) where they are printed.
  if (caps.warnings) out.warnings = caps.warnings.slice(0, NOTICES_MAX).map((line) => short(line, 1000))
  if (caps.mcpFailures) {
    out.mcpFailures = caps.mcpFailures.slice(0, NOTICES_MAX).map((failure) => ({ ...failure, server: short(failure.server, FACT_MAX_CHARS), error: short(failure.error, 1000) }))
  }
  return out
}

function clampEnvironment(environment: Environment): Environment {
  const fact = (text: string) => oneLine(text, FACT_MAX_CHARS)
  const out: Environment = { ...environment, os: fact(environment.os), arch: fact(environment.arch), date: fact(environment.date) }
  if (environment.osName !== undefined) out.osName = fact(environment.osName)
  if (environment.shell !== undefined) out.shell = fact(environment.shell)
  if (environment.git) {
    out.git = { ...environment.git, root: oneLine(environment.git.root, PATH_MAX_CHARS) }
    if (environment.git.branch !== undefined) out.git.branch = fact(environment.git.branch)
  }
  return out
}

/** As the executor does it: the nearest file (last) gets the budget first. */
function clampInstructions(files: InstructionsFile[]): InstructionsFile[] {
  let left = INSTRUCTIONS_MAX_CHARS
  const kept = files.map((file) => ({ ...file, path: oneLine(file.path, PATH_MAX_CHARS) }))
  for (const file of [...kept].reverse()) {
    if (file.text.length > left + CUT_SLACK_CHARS) file.text = cut(file.text, left)
    left = Math.max(0, left - file.text.length)
  }
  return kept
}

function cut(text: string, max: number): string {
  return `${text.slice(0, max)}\n[cut: the instructions files hold more than ${INSTRUCTIONS_MAX_CHARS} characters]`
}
