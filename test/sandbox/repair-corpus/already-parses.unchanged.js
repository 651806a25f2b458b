const n = 3
await writeFile({ path: "notes.md", content: `Use \`ls\` to list ${n} files.\n` })
await taskComplete(`Wrote ${n} note${n === 1 ? `` : `s`}.`)
