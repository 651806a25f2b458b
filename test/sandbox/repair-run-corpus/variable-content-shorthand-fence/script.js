const content = `# API

```ts
const client = new Client({ token: process.env.TOKEN })
await client.get(`/repos/${owner}/${repo}`)
```
`
await writeFile({ path: "docs/api.md", content })
