/**
 * The user's skills (`$XDG_CONFIG_HOME/clanka/skills/`) live beside the user's config, which the
 * sandbox hides from scripts and which a far host (--ssh) does not have. So the agent's side reads
 * them, and a script's `skill(name)` asks it for one (the `skill` agent-side service): the answer
 * carries the skill's files, which the executor copies into its temporary directory, where scripts
 * on any host can read and run them.
 */
import { readFile, realpath, stat } from "node:fs/promises"
import { dirname } from "node:path"
import * as v from "valibot"
import { inside } from "../executor/agents-md.ts"
import { findSkills, userSkillRoots } from "./discover.ts"
import { loadSkill, withinSkill } from "./load.ts"

export const SkillCallSchema = v.object({ name: v.string() })

export const UserSkillAnswerSchema = v.looseObject({
  /** The user's skills' names (for the error about an unknown one). */
  known: v.array(v.string()),
  skill: v.optional(
    v.looseObject({
      name: v.string(),
      description: v.string(),
      body: v.string(),
      /** Every file of the skill's folder, SKILL.md included, by its path inside the folder. */
      files: v.array(v.looseObject({ path: v.string(), base64: v.string(), executable: v.boolean() })),
      /** Files left out because the skill's folder holds more than it may send. */
      left: v.optional(v.array(v.string())),
    }),
  ),
})
export type UserSkillAnswer = v.InferOutput<typeof UserSkillAnswerSchema>

/** What one user skill's files may hold together when they cross to the executor. */
export const USER_SKILL_MAX_BYTES = 8 * 1024 * 1024

/** The answer to a script's `skill(name)` about the user's skills in `configDir` (none without one). */
export async function answerUserSkill(configDir: string | undefined, params: unknown): Promise<UserSkillAnswer> {
  const { name } = v.parse(SkillCallSchema, params)
  if (configDir === undefined) return { known: [] }
  const { skills } = await findSkills(userSkillRoots(configDir))
  const summary = skills.find((skill) => skill.name === name)
  const known = skills.map((skill) => skill.name)
  if (!summary) return { known }
  const skill = await loadSkill(summary, undefined)
  // Only what really lives in the skill's folder crosses, maybe to another host: a symlink there
  // to a key file must not carry the key along.
  const folder = await realpath(dirname(summary.path))
  const beside = (await Promise.all(skill.files.map(async (file) => (inside(folder, await realpath(file).catch(() => "")) ? [file] : [])))).flat()
  const files: { path: string; base64: string; executable: boolean }[] = []
  const left: string[] = []
  let bytes = 0
  for (const path of [summary.path, ...beside]) {
    const info = await stat(path)
    if (bytes + info.size > USER_SKILL_MAX_BYTES) {
      left.push(withinSkill(summary.path, path))
      continue
    }
    bytes += info.size
    files.push({ path: withinSkill(summary.path, path), base64: (await readFile(path)).toString("base64"), executable: (info.mode & 0o111) !== 0 })
  }
  return { known, skill: { name: skill.name, description: skill.description, body: skill.body, files, ...(left.length ? { left } : {}) } }
}
