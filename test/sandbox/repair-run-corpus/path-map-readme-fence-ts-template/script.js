const pkg = "@acme/projects"
await Promise.all(
  Object.entries({
    "packages/projects/README.md": `# ${pkg}

Loads `project.json` files and checks them. Errors are `Schema.TaggedError`s, so you can match
them with `Effect.catchTag`:

```ts
loadProject(dir).pipe(
  Effect.catchTag("MissingRalphSpec", (e) =>
    Effect.fail(new UsageError(`Add \"ralphSpec\" to ${e.projectId}/project.json`)),
  ),
)
```

The message of `MissingRalphSpec` reads `Project "<id>" is configured with gitFlow="ralph" but is missing "ralphSpec"`.
`,
    "packages/projects/CHANGELOG.md": `# ${pkg}\n\n## 0.4.0\n\n- \\`loadProject\\` fails with \\`MissingRalphSpec\\` instead of a plain \\`Error\\`.\n`,
  }).map(([path, content]) => writeFile({ path, content })),
)
