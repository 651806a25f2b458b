await applyPatch(String.raw`*** Begin Patch
*** Update File: docs/sync.md
@@
 # Sync
 
-Clients sync through the server.
+Clients sync through the server over the existing ` + "`EventLogRemote`" + String.raw` websocket protocol.
+
+```ts
+const remote = yield* EventLogRemote.fromWebSocket(`${baseUrl}/sync`, { retry: Schedule.exponential("200 millis") })
+```
+
+Messages are encoded with `MsgPack`; a frame larger than `maxFrameBytes` closes the socket.
 
 ## Configuration
*** End Patch`)
