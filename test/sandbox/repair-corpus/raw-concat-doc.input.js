const doc = String.raw`# Remote

The existing ` + "`EventLogRemote`" + String.raw` protocol is kept:

```ts
EventLogRemote.fromWebSocket(`ws://${host}/sync`)
```
`
await writeFile({ path: "docs/remote.md", content: doc })
