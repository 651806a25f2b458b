const r = await applyPatch(`*** Begin Patch
*** Update File: src/url.ts
@@
-  return base + "/" + path
+  return `${base}/${path}`
*** End Patch`)
console.log(`applyPatch said: ${r}`)
