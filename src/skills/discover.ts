/**
 * Skills in the SKILL.md layout other agents share: a folder per skill under a skills directory,
 * holding SKILL.md (front matter with `name` and `description`, then the instructions) and any
 * files the instructions use. The project's are under `.agents/skills/` and `.claude/skills/` of
 * each directory from the repository root down to the working directory; the user's under
 * `$XDG_CONFIG_HOME/clanka/skills/`.
 *
 * A project's skills are instructions from the repository, as its AGENTS.md: only files whose real
 * location is inside the repository are read.
 */
import { readdir, realpath, stat } from "node:fs/promises"
import { join, relative } from "node:path"
import type { SkillSummary } from "../contract.ts"
import { projectDirectories } from "../config/project-files.ts"
import { inside } from "../executor/agents-md.ts"
import { parseFrontMatter } from "./front-matter.ts"
import { readHead } from "../util/read-head.ts"
import { errorMessage } from "../util/error-message.ts"

/** Where skills are looked for, and what their files' real paths must be inside (none for the user's own). */
export interface SkillRoots {
  /** Skills directories, lowest precedence first: a later one's skill wins a name. */
  dirs: string[]
  boundary?: string
}

export interface FoundSkills {
  /** By name. */
  skills: SkillSummary[]
  /** Skills that could not be read: one line each, for the user. */
  warnings: string[]
}

/** How much of a SKILL.md is read to find its front matter. */
const HEAD_BYTES = 16 * 1024
/** A description longer than this is cut: it is one line of the system prompt. */
export const DESCRIPTION_MAX_CHARS = 400

/** The project's skills directories: in each directory from the repository root down, `.claude/skills` then `.agents/skills`. */
export async function projectSkillRoots(directory: string): Promise<SkillRoots> {
  const dirs = projectDirectories(directory)
  return {
    dirs: dirs.flatMap((dir) => [join(dir, ".claude", "skills"), join(dir, ".agents", "skills")]),
    boundary: await realpath(dirs[0]!).catch(() => dirs[0]!),
  }
}

/** The user's skills directory, `<config dir>/skills`. */
export function userSkillRoots(configDir: string): SkillRoots {
  return { dirs: [join(configDir, "skills")] }
}

export async function findSkills(roots: SkillRoots): Promise<FoundSkills> {
  const byName = new Map<string, SkillSummary>()
  const warnings: string[] = []
  const perDir = await Promise.all(roots.dirs.map((dir) => skillsIn(dir, roots.boundary)))
  for (const found of perDir) {
    for (const item of found) {
      if (typeof item === "string") warnings.push(item)
      else byName.set(item.name, item)
    }
  }
  return { skills: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), warnings }
}

/** The skills of one skills directory; a string is a warning about a skill that was left out. */
async function skillsIn(dir: string, boundary: string | undefined): Promise<(SkillSummary | string)[]> {
  const entries = await readdir(dir).catch(() => [] as string[])
  const found = await Promise.all(entries.sort().map((entry) => readSummary(join(dir, entry, "SKILL.md"), entry, boundary)))
  return found.filter((item) => item !== undefined)
}

async function readSummary(path: string, folder: string, boundary: string | undefined): Promise<SkillSummary | string | undefined> {
  const checked = await checkSkillFile(path, boundary)
  if (checked === undefined || typeof checked === "string") return checked
  const head = await readSkillHead(checked.real).catch((error: unknown) => ({ error: errorMessage(error) }))
  if (typeof head !== "string") return `${path}: cannot read it: ${head.error}`
  const front = parseFrontMatter(head)
  const description = oneLine(front?.fields.description ?? "")
  if (!front || !description) return `${path}: no front matter with a description (---, name: …, description: …, ---); skill not listed`
  const name = oneLine(front.fields.name ?? "") || folder
  return { name, description: description.length > DESCRIPTION_MAX_CHARS ? `${description.slice(0, DESCRIPTION_MAX_CHARS - 1)}…` : description, path }
}

/**
 * A SKILL.md that may be read: a regular file, inside `boundary` when there is one. Undefined when
 * the folder has none; a warning (string) when it is there but may not be read.
 */
export async function checkSkillFile(path: string, boundary: string | undefined): Promise<{ real: string } | string | undefined> {
  const real = await realpath(path).catch(() => undefined)
  if (!real) return undefined
  if (boundary !== undefined && !inside(boundary, real)) return `${path} is really ${real}, outside the workspace; skill not read`
  const info = await stat(real).catch(() => undefined)
  if (!info?.isFile()) return `${path} is not a regular file; skill not read`
  return { real }
}

/** The head of a SKILL.md, from what the open really found: one swapped for a FIFO meanwhile is not waited on. */
async function readSkillHead(path: string): Promise<string> {
  const head = await readHead(path, HEAD_BYTES)
  if (typeof head === "string") throw new Error("not a regular file")
  return head.bytes.toString("utf8")
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim()
}

/** A skill's path for the user: relative to `directory` when inside it. */
export function displayPath(path: string, directory: string): string {
  const rel = relative(directory, path)
  return rel && !rel.startsWith("..") ? rel : path
}
