await Promise.all([
  writeFile({ path: "docs/one.md", content: `Step one: run `init`.
` }),
  writeFile({ path: "docs/two.md", content: `Step two: run `build`.
` }),
])
