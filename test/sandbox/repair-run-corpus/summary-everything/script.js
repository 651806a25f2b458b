const files = ["src/parse.ts", "test/parse.test.ts"]
await taskComplete(`## Summary

Changed ${files.length} files: ${files.join(", ")}.

- `parse()` now accepts \`--\` to end options.
- Template strings such as `${name}` are no longer expanded in \`--title\`.

```sh
tally --title '${x}' -- src/
```
`)
