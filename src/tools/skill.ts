/**
 * `skill(name)`: a skill's instructions and the paths of its files. The project's skills are read
 * here, on the executor's host; the user's come from the agent's side (skills/user.ts) and are
 * copied into this process's temporary directory, so that readFile and bash find them on any host.
 * Declared to the model by the agent, with the list of skills, only when there are some.
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import * as v from "valibot"
import { ToolError } from "../errors.ts"
import { findSkills, projectSkillRoots } from "../skills/discover.ts"
import { loadSkill, type Skill, SkillSchema } from "../skills/load.ts"
import { type UserSkillAnswer, UserSkillAnswerSchema } from "../skills/user.ts"
import { inside } from "../executor/agents-md.ts"
import { defineTool, type ToolContext } from "./tool.ts"

export const skillTool = defineTool({
  name: "skill",
  keepsIndex: true,
  description: "Load a skill listed below: its instructions (body) and the paths of the files beside its SKILL.md (readFile them).",
  params: v.pipe(v.string(), v.minLength(1, "the skill's name is empty")),
  paramName: "name",
  result: SkillSchema,
  hidden: true,
  run: (name, ctx) => findSkill(name, ctx),
})

async function findSkill(name: string, ctx: ToolContext): Promise<Skill> {
  const roots = await projectSkillRoots(ctx.directory)
  const { skills } = await findSkills(roots)
  const project = skills.find((skill) => skill.name === name)
  if (project) return loadSkill(project, roots.boundary)
  const user = await askUserSkill(name, ctx)
  if (user.skill) return copyUserSkill(user.skill)
  const known = [...new Set([...skills.map((skill) => skill.name), ...user.known])].sort()
  if (known.length === 0) throw new ToolError(`no skill "${name}": there are no skills (folders with a SKILL.md under .agents/skills/ or .claude/skills/)`)
  throw new ToolError(`no skill "${name}"; the skills are: ${known.join(", ")}`)
}

async function askUserSkill(name: string, ctx: ToolContext): Promise<UserSkillAnswer> {
  let answer: unknown
  try {
    answer = await ctx.agentCall("skill", { name })
  } catch {
    // An agent that does not know the service (an older one) has no user skills to offer.
    return { known: [] }
  }
  const parsed = v.safeParse(UserSkillAnswerSchema, answer)
  return parsed.success ? parsed.output : { known: [] }
}

let copies: string | undefined

/** Writes a user skill's files under this process's temporary directory; the paths point there. */
async function copyUserSkill(skill: NonNullable<UserSkillAnswer["skill"]>): Promise<Skill> {
  if (copies === undefined) {
    copies = await mkdtemp(join(tmpdir(), "clanka-skills-"))
    const made = copies
    process.once("exit", () => rmSync(made, { recursive: true, force: true }))
  }
  const folder = join(copies, skill.name.replace(/[^\w.-]/g, "_").replace(/^\.+/, "_") || "skill")
  await rm(folder, { recursive: true, force: true })
  const written: string[] = []
  for (const file of skill.files) {
    const path = resolve(folder, file.path)
    // The names come from the agent's side: none may lead out of the folder.
    if (!inside(folder, path)) continue
    await mkdir(dirname(path), { recursive: true })
    await writeFile(path, Buffer.from(file.base64, "base64"))
    if (file.executable) await chmod(path, 0o755)
    written.push(path)
  }
  const path = join(folder, "SKILL.md")
  const left = skill.left?.length ? `\n\n[not copied, the skill's folder holds too much: ${skill.left.join(", ")}]` : ""
  return { name: skill.name, description: skill.description, body: skill.body + left, path, files: written.filter((file) => file !== path) }
}
