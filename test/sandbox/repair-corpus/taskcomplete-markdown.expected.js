await taskComplete(`Fixed the off-by-one in \`paginate()\`:

- \`src/page.ts\`: the last page now includes its final item
- added a test in \`test/page.test.ts\`

Run \`bun test test/page.test.ts\` to check.`)
