await applyPatch(`*** Begin Patch
*** Update File: src/a.ts
@@
-const s = "x" + y
+const s = \`x\${y}\`
*** End Patch`)
console.log(`done: `ok``)
