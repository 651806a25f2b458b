/**
 * `clanka skills [--json]`: the skills the model is offered, the project's and the user's. The
 * local project's are read here, without starting an executor; with --ssh or --executor they are
 * that executor's (its capabilities). The user's always come from this machine, as in a run.
 */
import { defineCommand } from "./define-command.ts"
import { skills as spec } from "./commands.ts"
import { resolve } from "node:path"
import type { SkillSummary } from "../contract.ts"
import { loadUserContext } from "../agent/user-context.ts"
import { displayPath, findSkills, projectSkillRoots } from "../skills/discover.ts"
import { visible } from "../output/visible.ts"
import { openExecutor } from "./executor-flags.ts"
import { checkDirectory } from "../util/check-directory.ts"

interface Listed extends SkillSummary {
  scope: "project" | "user"
}

export default defineCommand({
  ...spec,
  async run({ args }) {
    const local = args.ssh === undefined && args.executor === undefined
    if (local && args.directory !== undefined) await checkDirectory(args.directory)
    const directory = resolve(local ? (args.directory ?? ".") : ".")
    const [project, user] = await Promise.all([local ? localSkills(directory) : executorSkills(args), loadUserContext()])
    for (const line of [...project.warnings, ...(user?.warnings ?? [])]) process.stderr.write(`clanka: ${visible(line)}\n`)
    const names = new Set(project.skills.map((skill) => skill.name))
    const listed: Listed[] = [
      ...project.skills.map((skill) => ({ ...skill, scope: "project" as const })),
      // A project's skill wins a name both have, as in the prompt.
      ...(user?.skills ?? []).filter((skill) => !names.has(skill.name)).map((skill) => ({ ...skill, scope: "user" as const })),
    ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    if (args.json) {
      for (const skill of listed) process.stdout.write(JSON.stringify({ name: skill.name, description: skill.description, path: skill.path, scope: skill.scope }) + "\n")
      return
    }
    if (listed.length === 0) {
      process.stdout.write("No skills. A skill is a folder with a SKILL.md (front matter: name, description) under .agents/skills/ or .claude/skills/ of the project, or $XDG_CONFIG_HOME/clanka/skills/.\n")
      return
    }
    for (const skill of listed) {
      const path = local && skill.scope === "project" ? displayPath(skill.path, directory) : skill.path
      process.stdout.write(visible(`${skill.name} (${skill.scope}): ${skill.description}\n  ${path}\n`))
    }
  },
})

async function localSkills(directory: string) {
  return findSkills(await projectSkillRoots(directory))
}

async function executorSkills(args: Parameters<typeof openExecutor>[0]) {
  const executor = await openExecutor(args)
  try {
    const caps = await executor.capabilities()
    return { skills: caps.skills ?? [], warnings: [] as string[] }
  } finally {
    await executor.close()
  }
}
