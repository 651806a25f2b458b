const writes = [
  {
    path: "src/messages.ts",
    content: `export const missingSpec = (projectId: string) =>
  `Project "${projectId}" is configured with gitFlow=\"ralph\" but is missing \"ralphSpec\"`

export const unknownFlow = (projectId: string, flow: string) =>
  `Project "${projectId}" has an unknown gitFlow \"${flow}\"`
`,
  },
  {
    path: "docs/messages.md",
    content: `# Error messages

| function | example |
| --- | --- |
| `missingSpec(id)` | `Project "web" is configured with gitFlow="ralph" but is missing "ralphSpec"` |
| `unknownFlow(id, flow)` | `Project "web" has an unknown gitFlow "gitflow"` |

Both take plain strings; pass `{ projectId }` fields, not the whole config.
`,
  },
]
await Promise.all(writes.map((write) => writeFile(write)))
