await writeFile({ path: "notes.md", content: `# Notes\n\n| flag | meaning |\n|---|---|\n| `--quiet` | no output |\n| `--verbose` | more output |\n` })
