await writeFile({ path: "docs/run.md", content: `## Run\n\n\\`\\`\\`sh\nnpm start\n\\`\\`\\`\n` })
