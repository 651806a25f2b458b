const version = "1.3.0"
await writeFile({ path: "docs/version.md", content: `Current version: ${version}. Install with `npm i tally@${version}`.\n` })
