await writeFile({ content: `# clanka

Use `clanka run "fix the tests"` in a repository.
`, path: "README.md" })
