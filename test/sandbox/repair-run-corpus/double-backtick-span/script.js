await writeFile({ path: "docs/quoting.md", content: `# Quoting

In Markdown, wrap a backtick in double backticks: `` ` ``.
A shell command substitution looks like ``echo `date` ``.
` })
