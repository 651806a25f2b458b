await writeFile({
  path: "docs/remote.md",
  content: String.raw`# Remote event log

Use ` + "`EventLogRemote.layerWebSocket`" + String.raw` to connect a client:

```ts
const RemoteLive = EventLogRemote.layerWebSocket(`wss://${host}/events`).pipe(
  Layer.provide(Socket.layerWebSocketConstructorGlobal)
)
```

The identity comes from `EventLog.Identity`; generate one with `EventLog.makeIdentity`.
`,
})
