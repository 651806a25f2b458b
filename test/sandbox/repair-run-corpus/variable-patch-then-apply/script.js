const patch = `*** Begin Patch
*** Update File: src/version.ts
@@
-export const banner = "tally " + VERSION
+export const banner = `tally ${VERSION} (${COMMIT.slice(0, 7)})`
*** End Patch`
const result = await applyPatch(patch)
console.log(result)
