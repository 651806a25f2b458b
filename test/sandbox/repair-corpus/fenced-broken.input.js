```js
await applyPatch(`*** Begin Patch
*** Update File: package.json
@@
-  "test": "jest"
+  "test": "bun test"
*** End Patch`)
await taskComplete(`Switched `npm test` to bun.`)
```
