const version = "3.12.0"
const notes = {
  ".changeset/schema-brand-errors.md": `---
"effect": minor
---

\\`Schema.brand\\` failures now name the brand: `Expected UserId, actual "abc"`
instead of \\`Expected a branded string\\`. Introduced in ${version}.
`,
  ".changeset/schema-pretty-cycles.md": `---
"effect": patch
---

\`Pretty.make\` no longer overflows the stack on recursive schemas built with `Schema.suspend`.
`,
}
for (const [path, content] of Object.entries(notes)) await writeFile({ path, content })
