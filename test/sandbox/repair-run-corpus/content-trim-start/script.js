await writeFile({
  path: "docs/faq.md",
  content: `
# FAQ

**Why is `node_modules` skipped?** It is listed in `.gitignore`.
`.trimStart(),
})
