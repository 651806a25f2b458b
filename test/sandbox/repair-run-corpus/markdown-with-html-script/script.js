await writeFile({
  path: "docs/embed.md",
  content: `# Embedding

```html
<div id="tally"></div>
<script>
  const el = document.getElementById("tally")
  el.textContent = `${count} lines`
</script>
```
`,
})
