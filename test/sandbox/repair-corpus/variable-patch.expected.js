const patch = `*** Begin Patch
*** Update File: src/log.ts
@@
-export const line = (msg: string) => msg
+export const line = (msg: string) => \`[\${new Date().toISOString()}] \${msg}\`
*** End Patch`
const out = await applyPatch(patch)
console.log(out)
