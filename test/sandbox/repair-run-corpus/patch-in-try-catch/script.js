try {
  await applyPatch(`*** Begin Patch
*** Update File: src/a.ts
@@
-export const a = 1
+export const a = 1
+export const label = `a is ${a}`
*** End Patch`)
  console.log("ok")
} catch (error) {
  console.log(`patch failed: ${error.message}`)
}
