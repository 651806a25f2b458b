/**
 * The user's skills (`$XDG_CONFIG_HOME/clanka/skills/`) live beside the user's config, which the
 * sandbox hides from scripts and which a far host (--ssh) does not have. So the agent's side reads
 * them, and a script's `skill(name)` asks it for one (the `skill` agent-side service): the answer
 * carries the skill's files, which the executor copies into its temporary directory, where scripts
 * on any host can read and run them.
 */
import { constants } from "node:fs"
import { type FileHandle, open, readlink, realpath } from "node:fs/promises"
import { dirname, join } from "node:path"
import type { SkillSummary } from "../contract.ts"
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
  // Only what really lives in the skill's folder crosses, maybe to another host: a symlink there
  // to a key file must not carry the key along. The folder may be a script's to change (a skill
  // symlinked from a project being worked on), the folder itself too (a link to ~/.ssh one moment,
  // to the skill the next): so the folder is opened once, and every file is read through that
  // descriptor and checked by what each read really opened.
  const opened = await openFolder(dirname(summary.path))
  if (!opened) return { known }
  try {
    const skill = await readSkillFiles(summary, opened)
    return skill ? { known, skill } : { known }
  } finally {
    await opened.handle.close()
  }
}

/** The skill's files from the opened folder; undefined when its SKILL.md is gone or is no skill. */
async function readSkillFiles(summary: SkillSummary, opened: OpenFolder): Promise<NonNullable<UserSkillAnswer["skill"]> | undefined> {
  const skill = await loadSkill({ ...summary, path: opened.through("SKILL.md") }, undefined)
  const files: { path: string; base64: string; executable: boolean }[] = []
  const left: string[] = []
  let bytes = 0
  let body = skill.body
  for (const path of [opened.through("SKILL.md"), ...skill.files]) {
    const isSkillMd = path === opened.through("SKILL.md")
    const read = await readChecked(path, isSkillMd ? undefined : opened.real, USER_SKILL_MAX_BYTES - bytes)
    if (read === undefined && isSkillMd) return undefined
    if (read === undefined) continue
    if (read === "large") {
      left.push(withinSkill(summary.path, path))
      continue
    }
    if (isSkillMd) {
      // SKILL.md may live elsewhere (a dotfiles link), but what was read must still be a skill.
      if (!parseFrontMatter(read.content.toString("utf8"))?.fields.description) return undefined
      body = skillBody(read.content.toString("utf8"))
    }
    bytes += read.content.length
    files.push({ path: withinSkill(opened.through("SKILL.md"), path), base64: read.content.toString("base64"), executable: read.executable })
  }
  return { name: skill.name, description: skill.description, body, files, ...(left.length ? { left } : {}) }
}

interface OpenFolder {
  handle: FileHandle
  /** Its real path when it was opened: what the files read must really be inside. */
  real: string
  /** `name` inside it: through the descriptor on Linux, so a folder swapped since is not followed. */
  through(name: string): string
}

async function openFolder(path: string): Promise<OpenFolder | undefined> {
  let handle: FileHandle
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY)
  } catch {
    return undefined
  }
  const linux = process.platform === "linux"
  const real = linux ? await readlink(`/proc/self/fd/${handle.fd}`).catch(() => "") : await realpath(path).catch(() => "")
  if (!real) {
    await handle.close()
    return undefined
  }
  return { handle, real, through: (name) => (linux ? join(`/proc/self/fd/${handle.fd}`, name) : join(path, name)) }
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
