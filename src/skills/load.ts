/**
 * One skill in full, as `skill(name)` returns it: the instructions of its SKILL.md and the files
 * beside it (scripts, references, templates), which the skill's instructions name and the model
 * reads or runs by the paths given here.
 */
import { lstat, readdir, realpath, stat } from "node:fs/promises"
import { dirname, join, relative } from "node:path"
import * as v from "valibot"
import type { SkillSummary } from "../contract.ts"
import { inside } from "../executor/agents-md.ts"
import { parseFrontMatter } from "./front-matter.ts"
import { readHead } from "../util/read-head.ts"

export const SkillSchema = v.object({
  name: v.string(),
  description: v.string(),
  /** The instructions: SKILL.md after its front matter. */
  body: v.string(),
  /** Absolute path of the SKILL.md. */
  path: v.string(),
  /** Absolute paths of the other files in the skill's folder. */
  files: v.array(v.string()),
})
export type Skill = v.InferOutput<typeof SkillSchema>

/** Files listed per skill; a folder holding more is cut (a skill is a handful of files). */
export const MAX_SKILL_FILES = 200
const MAX_BODY_CHARS = 256 * 1024

/** The skill of `summary` (found by discover.ts), its files inside `boundary` when there is one. */
export async function loadSkill(summary: SkillSummary, boundary: string | undefined): Promise<Skill> {
  const real = await realpath(summary.path)
  if (boundary !== undefined && !inside(boundary, real)) throw new Error(`${summary.path} is outside the workspace`)
  // No more than the body can give (front matter and 4 bytes a character): SKILL.md may be huge.
  const head = await readHead(real, MAX_BODY_CHARS * 4 + 64 * 1024)
  if (typeof head === "string") throw new Error(`${summary.path} is not a regular file`)
  const body = skillBody(head.bytes.toString("utf8"))
  const folder = dirname(summary.path)
  const files = (await listFiles(folder, boundary)).filter((path) => path !== summary.path)
  return { name: summary.name, description: summary.description, body, path: summary.path, files }
}

/** A SKILL.md's instructions: what follows its front matter, cut when very long. */
export function skillBody(text: string): string {
  const body = (parseFrontMatter(text)?.body ?? text).trim()
  return body.length > MAX_BODY_CHARS ? `${body.slice(0, MAX_BODY_CHARS)}\n[cut at ${MAX_BODY_CHARS} characters; readFile the path for the rest]` : body
}

/**
 * The regular files under `folder` (its subfolders too, dot folders left out), sorted; within
 * `boundary` when given, so a symlink out of the repository is not offered to the model.
 */
export async function listFiles(folder: string, boundary: string | undefined): Promise<string[]> {
  const found: string[] = []
  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = (await readdir(dir).catch(() => [] as string[])).sort()
    for (const entry of entries) {
      if (found.length >= MAX_SKILL_FILES) return
      const path = join(dir, entry)
      const info = await lstat(path).catch(() => undefined)
      if (!info) continue
      if (info.isDirectory()) {
        if (!entry.startsWith(".") && depth < 8) await walk(path, depth + 1)
        continue
      }
      if (info.isSymbolicLink()) {
        const real = await realpath(path).catch(() => undefined)
        if (!real || (boundary !== undefined && !inside(boundary, real)) || !(await stat(real)).isFile()) continue
      } else if (!info.isFile()) continue
      found.push(path)
    }
  }
  await walk(folder, 0)
  return found
}

/** A file's path relative to its skill's folder (what crosses to another host). */
export function withinSkill(skillPath: string, file: string): string {
  return relative(dirname(skillPath), file)
}
