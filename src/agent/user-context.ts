/**
 * The user's own instructions and skills, from `$XDG_CONFIG_HOME/clanka` (AGENTS.md and
 * skills/): read on the agent's side, beside the user's config. The sandbox hides that directory
 * from scripts (it may hold keys) and a far host (--ssh) does not have it, while the user's
 * instructions are the user's wherever the scripts run; the user's skills reach scripts through
 * `skill(name)` (skills/user.ts).
 */
import { join } from "node:path"
import type { InstructionsFile, SkillSummary } from "../contract.ts"
import { userConfigDir } from "../config/load.ts"
import { INSTRUCTIONS_MAX_CHARS } from "../executor/agents-md.ts"
import { findSkills, userSkillRoots } from "../skills/discover.ts"
import { errorMessage } from "../util/error-message.ts"
import { readHead } from "../util/read-head.ts"

export interface UserContext {
  /** The user's clanka directory; `skill(name)` looks for the user's skills there. */
  dir: string
  /** `<dir>/AGENTS.md`, when there is one. */
  instructions?: InstructionsFile
  skills: SkillSummary[]
  /** Lines for the user (a skill without front matter). */
  warnings: string[]
}

/** The user's context from `dir` (default `$XDG_CONFIG_HOME/clanka`); undefined without a home. */
export async function loadUserContext(dir: string | undefined = userConfigDir()): Promise<UserContext | undefined> {
  if (dir === undefined) return undefined
  const path = join(dir, "AGENTS.md")
  const warnings: string[] = []
  const [text, found] = await Promise.all([
    // As far as the prompt takes it (4 bytes a character at most), from what the open found.
    readHead(path, INSTRUCTIONS_MAX_CHARS * 4).then(
      (head) => (typeof head === "string" ? undefined : head.bytes.toString("utf8")),
      (error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code
        if (code !== "ENOENT" && code !== "ENOTDIR") warnings.push(`${path}: cannot read it: ${errorMessage(error)}`)
        return undefined
      },
    ),
    findSkills(userSkillRoots(dir)).catch((error: unknown) => ({ skills: [], warnings: [`${join(dir, "skills")}: ${errorMessage(error)}`] })),
  ])
  const cut = text && text.length > INSTRUCTIONS_MAX_CHARS ? `${text.slice(0, INSTRUCTIONS_MAX_CHARS)}\n[cut at ${INSTRUCTIONS_MAX_CHARS} characters]` : text
  return { dir, ...(cut?.trim() ? { instructions: { path, text: cut } } : {}), skills: found.skills, warnings: [...warnings, ...found.warnings] }
}
