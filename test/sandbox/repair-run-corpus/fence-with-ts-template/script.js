await writeFile({
  path: "docs/greeting.md",
  content: `# Greeting

```ts
export function greet(name: string): string {
  return `Hello, ${name}!`
}
```

Call `greet("Ada")` to get `Hello, Ada!`.
`,
})
