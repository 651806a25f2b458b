await writeFile({
  path: "docs/config.md",
  content: `# Configuration

Settings live in \`tally.json\`. The \`exclude\` list takes globs such as \`dist/**\`.
Set `followSymlinks` to \`true\` to follow links.
`,
})
