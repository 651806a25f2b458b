// SKILL.md front matter as skills in the wild write it: plain, quoted, folded over lines, with
// keys this does not read (nested metadata) around the two it does.
import { expect, test } from "bun:test"
import { parseFrontMatter } from "../../src/skills/front-matter.ts"

test("plain, double-quoted and single-quoted values; the body after the closing line", () => {
  const parsed = parseFrontMatter(`---\nname: pdf-forms\ndescription: "Fill \\"PDF\\" forms: fields, checkboxes"\nlicense: 'It''s MIT'\n---\n\n# Body\n`)
  expect(parsed).toEqual({ fields: { name: "pdf-forms", description: 'Fill "PDF" forms: fields, checkboxes', license: "It's MIT" }, body: "\n# Body\n" })
})

test("folded (>) and literal (|) blocks, a plain value over several lines, and a nested map passed over", () => {
  const text = [
    "---",
    "name: review # the short name",
    "description: >-",
    "  Review a change",
    "  before it is merged.",
    "metadata:",
    "  author: someone",
    "  version: 2",
    "notes: |",
    "  line one",
    "  line two",
    "summary: a plain value",
    "  that goes on",
    "allowed-tools:",
    "  - bash",
    "---",
    "Body",
  ].join("\r\n")
  expect(parseFrontMatter(text)?.fields).toEqual({
    name: "review",
    description: "Review a change before it is merged.",
    notes: "line one\nline two",
    summary: "a plain value that goes on",
  })
})

test("a text without front matter, or whose front matter never closes, has none", () => {
  expect(parseFrontMatter("# Just markdown\n")).toBeUndefined()
  expect(parseFrontMatter("---\nname: x\n")).toBeUndefined()
  expect(parseFrontMatter("\uFEFF---\nname: x\ndescription: y\n---\n")?.fields).toEqual({ name: "x", description: "y" })
})
