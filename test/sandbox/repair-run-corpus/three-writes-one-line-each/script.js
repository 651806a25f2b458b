await writeFile({ path: "docs/a.md", content: `Use `a()` first.\n` })
await writeFile({ path: "docs/b.md", content: `Then `b()`.\n` })
await writeFile({ path: "docs/c.md", content: `Finally `c()`.\n` })
console.log("three docs")
