const dir = "docs"
await writeFile({
  path: `${dir}/usage.md`,
  content: `## Usage

```sh
clanka exec -e 'console.log(await ls("."))'
```

The output is a `string[]`.
`,
})
console.log(await readFile({ path: `${dir}/usage.md` }))
