const files = [
  {
    path: ".changeset/rpc-timeouts.md",
    content: `---
"@effect/rpc": minor
---

Add a per-request \\`timeout\\` option to \\`RpcClient.make\\`. A request that times out fails with
\\`RpcClientError\\` whose \\`reason\\` is \\`"Timeout"\\`.
`,
  },
  {
    path: "docs/rpc-timeouts.md",
    content: `# Timeouts

Pass `timeout` when you build the client:

```ts
const client = yield* RpcClient.make(UserRpcs, { timeout: "5 seconds" })
```

A timed-out call fails with `RpcClientError` and `reason: "Timeout"`; retry it with
`Effect.retry({ times: 2 })` if the call is idempotent.
`,
  },
]
for (const file of files) await writeFile(file)
