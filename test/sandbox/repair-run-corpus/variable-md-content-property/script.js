const md = `## Troubleshooting

If `tally` prints `EACCES`, run it with `--no-cache`.
`
await writeFile({ path: "docs/troubleshooting.md", content: md })
console.log(`wrote ${md.length} characters`)
