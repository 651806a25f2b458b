/**
 * The system prompt's sections about where the agent works: the machine's facts, the skills and
 * the instructions files. The executor gathers them (so they are the far host's over --ssh); the
 * user's own instructions and skills come from the agent's side (user-context.ts).
 */
import type { Environment, InstructionsFile, SandboxMode, SkillSummary } from "../contract.ts"
import { skillTool } from "../tools/skill.ts"
import { renderToolDeclaration } from "../tools/dts.ts"
import type { UserContext } from "./user-context.ts"

/** What the skills section's lines may hold together; the rest are counted. */
export const SKILLS_LIST_MAX_CHARS = 2_000

const SANDBOX_MEANS: Record<SandboxMode, string> = {
  "workspace-write": "writes only in the working directory and /tmp",
  "read-only": "no file writes",
  off: "no sandbox",
}

/** "Environment:" and the lines after it; facts an older executor does not send are left out. */
export function environmentSection(
  directory: string,
  environment: Environment | undefined,
  sandbox: { mode: SandboxMode; network: boolean; backend?: unknown } | undefined,
): string {
  const lines: string[] = []
  if (environment) {
    const os = [environment.osName, `${environment.os}/${environment.arch}`, environment.shell].filter(Boolean).join(", ")
    lines.push(`- ${os}; today is ${environment.date}`)
    const git = environment.git
    if (!git) lines.push("- Not in a git repository")
    else {
      const changed = git.changedFiles === undefined ? "" : `, ${git.changedFiles === 0 ? "no" : git.changedFiles} changed file${git.changedFiles === 1 ? "" : "s"}`
      lines.push(`- Git repository${git.root === directory ? "" : ` at ${git.root}`}${git.branch ? `, branch ${git.branch}` : ""}${changed}`)
    }
  }
  if (sandbox) {
    const backend = typeof sandbox.backend === "string" && sandbox.mode !== "off" ? ` (${sandbox.backend})` : ""
    // Landlock's temporary directory is TMPDIR (the host's /tmp stays closed), and no loopback without the network.
    const landlock = sandbox.backend === "landlock" && sandbox.mode !== "off"
    const means = landlock && sandbox.mode === "workspace-write" ? "writes only in the working directory and $TMPDIR (not /tmp)" : SANDBOX_MEANS[sandbox.mode]
    lines.push(`- Sandbox: ${sandbox.mode}${backend}, ${means}; network ${sandbox.network ? "on" : landlock ? "off (loopback too)" : "off"}`)
  }
  return lines.length ? `Environment:\n${lines.join("\n")}` : ""
}

/**
 * The instructions files: the user's first, then the repository's from its root down. An executor
 * that sends only `agentsMd` (an older one) gives its text as one file.
 */
export function instructionsOf(
  caps: { instructionsFiles?: InstructionsFile[] | undefined; agentsMd?: string | null | undefined; directory: string },
  user: UserContext | undefined,
): InstructionsFile[] {
  const project = caps.instructionsFiles ?? (caps.agentsMd?.trim() ? [{ path: `${caps.directory}/AGENTS.md`, text: caps.agentsMd }] : [])
  return [...(user?.instructions ? [user.instructions] : []), ...project]
}

export function instructionsSection(files: readonly InstructionsFile[]): string {
  if (files.length === 0) return ""
  const heading = "Instructions from AGENTS.md files (the user's first, then the repository's from its root down; a later one wins where they differ):"
  return [heading, ...files.map((file) => `--- ${file.path} ---\n${file.text.trim()}`)].join("\n\n")
}

/**
 * The project's skills and the user's, by name; the project's win a name both have. None when the
 * executor sends no `skills` (an older one, or one without the skill tool): scripts there have no
 * skill() to load them with.
 */
export function skillsOf(caps: { skills?: SkillSummary[] | undefined }, user: UserContext | undefined): SkillSummary[] {
  if (caps.skills === undefined) return []
  const byName = new Map<string, SkillSummary>()
  for (const skill of [...(user?.skills ?? []), ...(caps.skills ?? [])]) byName.set(skill.name, skill)
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

export function skillsSection(skills: readonly SkillSummary[]): string {
  if (skills.length === 0) return ""
  const lines: string[] = []
  let size = 0
  for (const [index, skill] of skills.entries()) {
    const line = `- ${skill.name}: ${skill.description}`
    if (size + line.length > SKILLS_LIST_MAX_CHARS) {
      lines.push(`- … and ${skills.length - index} more; an unknown name's error lists them all`)
      break
    }
    lines.push(line)
    size += line.length + 1
  }
  return [
    "Skills: instructions for particular tasks. Before a task a skill covers, load it and follow its body:",
    renderToolDeclaration(skillTool, { allArgs: true }),
    ...lines,
  ].join("\n")
}
