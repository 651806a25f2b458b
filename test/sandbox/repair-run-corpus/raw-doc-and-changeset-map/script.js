const guide = String.raw`# Migrating to Schema errors

` + "`SqlError`" + String.raw` is now a ` + "`Schema.TaggedError`" + String.raw`, so it survives being sent to a worker.

```ts
const program = sql`SELECT * FROM users WHERE id = ${id}`.pipe(
  Effect.catchTag("SqlError", (error) => Effect.logError(`query failed: ${error.message}`))
)
```

If you matched on `error instanceof SqlError`, switch to `Effect.catchTag("SqlError", ...)`.
`
const changesets = {
  ".changeset/sql-error-schema.md": `---\n"@effect/sql": minor\n---\n\nMigrate \\`SqlError\\` to \\`Schema.TaggedError\\`.\n`,
}
await writeFile({ path: "docs/migrating-sql-errors.md", content: guide })
for (const [path, content] of Object.entries(changesets)) await writeFile({ path, content })
