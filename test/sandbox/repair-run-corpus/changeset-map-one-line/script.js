const changesets = {
  '.changeset/sql-error-schema.md': `---\n"@effect/sql": minor\n---\n\nMigrate \\`SqlError\\` to \\`Schema.TaggedError\\` so it can be serialized across workers.\n`,
  '.changeset/pg-error-cause.md': `---\n"@effect/sql-pg": patch\n---\n\nKeep the driver error as the \\`cause\\` of \\`SqlError\\` instead of its message only.\n`,
}
for (const [path, content] of Object.entries(changesets)) {
  await writeFile({ path, content })
}
console.log(`wrote ${Object.keys(changesets).length} changesets`)
