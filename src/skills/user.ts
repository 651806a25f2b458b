/**
 * The user's skills (`$XDG_CONFIG_HOME/clanka/skills/`) live beside the user's config, which the
 * sandbox hides from scripts and which a far host (--ssh) does not have. So the agent's side reads
 * them, and a script's `skill(name)` asks it for one (the `skill` agent-side service): the answer
 * carries the skill's files, which the executor copies into its temporary directory, where scripts
 * on any host can read and run them.
 */
import { constants } from "node:fs"
import { open, readlink, realpath } from "node:fs/promises"
import { dirname } from "node:path"
import * as v from "valibot"
import { inside } from "../executor/agents-md.ts"
import { findSkills, userSkillRoots } from "./discover.ts"
import { parseFrontMatter } from "./front-matter.ts"
import { loadSkill, skillBody, withinSkill } from "./load.ts"

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
  // to a key file must not carry the key along. The folder may be a script's to change (a skill
  // symlinked from a project being worked on): what counts is the file each read really opened.
  const folder = await realpath(dirname(summary.path))
  const files: { path: string; base64: string; executable: boolean }[] = []
  const left: string[] = []
  let bytes = 0
  let body = skill.body
  for (const path of [summary.path, ...skill.files]) {
    const isSkillMd = path === summary.path
    const read = await readChecked(path, isSkillMd ? undefined : folder, USER_SKILL_MAX_BYTES - bytes)
    if (read === undefined) continue
    if (read === "large") {
      left.push(withinSkill(summary.path, path))
      continue
    }
    if (isSkillMd) {
      // SKILL.md may live elsewhere (a dotfiles link), but what was read must still be a skill.
      if (!parseFrontMatter(read.content.toString("utf8"))?.fields.description) return { known }
      body = skillBody(read.content.toString("utf8"))
    }
    bytes += read.content.length
    files.push({ path: withinSkill(summary.path, path), base64: read.content.toString("base64"), executable: read.executable })
  }
  return { known, skill: { name: skill.name, description: skill.description, body, files, ...(left.length ? { left } : {}) } }
}

/**
 * A regular file's bytes, read from one open descriptor: on Linux the file it really opened must
 * be inside `folder` (when given), whatever the path led to a moment before. "large" past `room`.
 */
async function readChecked(path: string, folder: string | undefined, room: number): Promise<{ content: Buffer; executable: boolean } | "large" | undefined> {
  let handle
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) return undefined
    const real = process.platform === "linux" ? await readlink(`/proc/self/fd/${handle.fd}`).catch(() => "") : await realpath(path).catch(() => "")
    if (folder !== undefined && !inside(folder, real)) return undefined
    if (info.size > room) return "large"
    // As much as it held when checked: a file still growing is not followed.
    const content = Buffer.alloc(info.size)
    const { bytesRead } = await handle.read(content, 0, info.size, 0)
    return { content: content.subarray(0, bytesRead), executable: (info.mode & 0o111) !== 0 }
  } finally {
    await handle.close()
  }
}
