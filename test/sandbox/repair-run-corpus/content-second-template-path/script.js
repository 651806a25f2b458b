const slug = "release-notes"
await writeFile({ path: `docs/${slug}.md`, content: `# Release notes

- `tally diff` compares two snapshots.
- `--since <date>` limits the history.
` })
