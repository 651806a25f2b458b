/**
 * What an executor tells the agent about where it works, besides its tools: the instructions
 * files, the project's skills and the machine's facts. Gathered at each capabilities request (a
 * file edited meanwhile counts), all at once.
 */
import type { Environment, InstructionsFile, SkillSummary } from "../contract.ts"
import { findSkills, projectSkillRoots } from "../skills/discover.ts"
import { dirname, resolve } from "node:path"
import { readInstructionsChain } from "./agents-md.ts"
import { gatherEnvironment } from "./environment.ts"

export interface ExecutorContext {
  instructionsFiles: InstructionsFile[]
  /** The working directory's own file, as agents that do not read `instructionsFiles` take it. */
  agentsMd: string | null
  skills: SkillSummary[]
  environment: Environment
  warnings: string[]
}

export async function gatherContext(directory: string): Promise<ExecutorContext> {
  const [chain, skills, environment] = await Promise.all([
    readInstructionsChain(directory),
    projectSkillRoots(directory).then(findSkills),
    gatherEnvironment(directory),
  ])
  return {
    instructionsFiles: chain.files,
    agentsMd: chain.files.find((file) => dirname(file.path) === resolve(directory))?.text ?? null,
    skills: skills.skills,
    environment,
    warnings: [...chain.warnings, ...skills.warnings],
  }
}
