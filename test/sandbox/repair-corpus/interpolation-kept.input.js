const changed = ["a.ts", "b.ts"]
await applyPatch(`*** Begin Patch
*** Update File: a.ts
@@
-x = "v" + n
+x = `v${n}`
*** End Patch`)
await taskComplete(`Changed ${changed.length} files: ${changed.join(", ")}`)
