await writeFile({ path: "CONTRIBUTING.md", content: `# Contributing

Write examples in fenced blocks. To show a fence inside a fence, use four backticks:

````md
```js
console.log(`sum: ${1 + 2}`)
```
````

Keep lines under 100 characters.
` })
