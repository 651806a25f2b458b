const md = `# Build
Run `make`
Then `make test`
`
await writeFile({ path: "BUILD.md", content: md })
console.log(`wrote ${md.length} chars`)
