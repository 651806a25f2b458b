try {
  await applyPatch(`*** Begin Patch
*** Update File: src/x.ts
@@
-  const label = "n=" + n
+  const label = \`n=\${n}\`
*** End Patch`)
} catch (error) {
  console.log(`patch failed: ${error.message}`)
}
