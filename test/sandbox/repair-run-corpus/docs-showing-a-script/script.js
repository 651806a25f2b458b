await writeFile({ path: "docs/scripts.md", content: `# Scripts

A script writes files with one call:

```js
await writeFile({ path: "hello.txt", content: `Hello, ${name}!` })
```
` })
