await applyPatch(`*** Begin Patch
*** Update File: src/id.ts
@@
-export const id = (prefix: string, n: number) => prefix + "-" + n
+export const id = (prefix: string, n: number) => \\`\\${prefix}-\\${n}\\`
*** End Patch`)
