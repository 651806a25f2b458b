const doc = String.raw`# Event log sync

The sync server speaks the existing ` + "`EventLogRemote`" + String.raw` websocket protocol, so clients
built against 0.3 keep working without a rebuild.

## Running the server

```ts
import { EventLogServer } from "@effect/experimental"
import { NodeHttpServer } from "@effect/platform-node"

const ServerLive = EventLogServer.layerWebSocket("/sync").pipe(
  Layer.provide(NodeHttpServer.layer(createServer, { port: 3000 }))
)
```

Clients connect with `EventLogRemote.fromWebSocket("ws://localhost:3000/sync")`; the identity
is read from `EventLog.Identity` and sent in the first frame.

## Storage

Entries are kept in `EventJournal.makeIndexedDb()` in the browser and in
`EventJournal.makeMemory` in tests. A journal path such as `C:\data\journal` works on Windows.
`

await writeFile({ path: "docs/event-log-sync.md", content: doc })
console.log(`wrote ${doc.length} characters`)
