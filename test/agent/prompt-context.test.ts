// The prompt's sections about where the agent works, from capabilities as an executor sends them:
// a long skills list is capped, and an older executor (no facts, only its AGENTS.md) still works.
import { expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { LocalExecutor } from "../../src/executor/local.ts"
import { builtinTools } from "../../src/tools/registry.ts"
import { buildSystemPrompt } from "../../src/agent/system-prompt.ts"
import { SKILLS_LIST_MAX_CHARS } from "../../src/agent/prompt-context.ts"

const base = { toolsDts: "declare function readFile(path: string): Promise<string>", directory: "/work/app" }

test("the skills list is capped: the first lines, then how many more there are", () => {
  const skills = Array.from({ length: 60 }, (_, i) => ({ name: `skill-${String(i).padStart(2, "0")}`, description: "d".repeat(80), path: `/s/${i}/SKILL.md` }))
  const prompt = buildSystemPrompt({ ...base, skills })
  const lines = prompt.slice(prompt.indexOf("Skills:")).split("\n").filter((line) => line.startsWith("- "))
  const listed = lines.filter((line) => line.startsWith("- skill-"))
  expect(listed.length).toBeGreaterThan(10)
  expect(listed.join("\n").length).toBeLessThanOrEqual(SKILLS_LIST_MAX_CHARS)
  expect(lines.at(-1)).toBe(`- … and ${60 - listed.length} more; an unknown name's error lists them all`)
})

test("an executor without the skill tool offers no skills, so none are listed", async () => {
  const directory = mkdtempSync(join(tmpdir(), "clanka-prompt-noskill-"))
  mkdirSync(join(directory, ".agents/skills/review"), { recursive: true })
  writeFileSync(join(directory, ".agents/skills/review/SKILL.md"), "---\nname: review\ndescription: Review.\n---\n")
  const executors = [new LocalExecutor({ directory }), new LocalExecutor({ directory, tools: builtinTools.filter((tool) => tool.name !== "skill") })]
  try {
    const [full, custom] = await Promise.all(executors.map((executor) => executor.capabilities()))
    expect(buildSystemPrompt(full!)).toContain("\n- review: Review.")
    expect(custom!.skills).toBeUndefined()
    expect(buildSystemPrompt(custom!)).not.toContain("skill(")
  } finally {
    await Promise.all(executors.map((executor) => executor.close()))
    rmSync(directory, { recursive: true, force: true })
  }
})

test("no skills: no skills section and no skill() declaration", () => {
  expect(buildSystemPrompt({ ...base, skills: [] })).not.toContain("skill(")
})

test("an older executor's capabilities: its AGENTS.md under its path, no environment facts, the user's file first, no skills (it has no skill())", () => {
  const prompt = buildSystemPrompt({
    ...base,
    agentsMd: "Old rule.\n",
    user: {
      dir: "/home/u/.config/clanka",
      instructions: { path: "/home/u/.config/clanka/AGENTS.md", text: "Mine.\n" },
      skills: [{ name: "notes", description: "Notes.", path: "/home/u/.config/clanka/skills/notes/SKILL.md" }],
      warnings: [],
    },
  })
  expect(prompt).not.toContain("Environment:")
  expect(prompt).not.toContain("skill(")
  expect(prompt).toEndWith("--- /home/u/.config/clanka/AGENTS.md ---\nMine.\n\n--- /work/app/AGENTS.md ---\nOld rule.")
})

test("a project skill wins the name of a user skill", () => {
  const prompt = buildSystemPrompt({
    ...base,
    skills: [{ name: "review", description: "The project's.", path: "/work/app/.agents/skills/review/SKILL.md" }],
    user: { dir: "/u", skills: [{ name: "review", description: "The user's.", path: "/u/skills/review/SKILL.md" }, { name: "notes", description: "Notes.", path: "/u/skills/notes/SKILL.md" }], warnings: [] },
  })
  expect(prompt).toEndWith("\n- notes: Notes.\n- review: The project's.")
})
