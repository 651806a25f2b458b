const files = {
  ".changeset/sql-error.md": `---\n"@effect/sql": minor\n---\n\nMigrate \\`SqlError\\` to \\`Schema.TaggedError\\`.\n`,
  notes: `not a path: \`kept\``,
}
for (const [path, content] of Object.entries(files)) await writeFile({ path, content })
