await applyPatch(`*** Begin Patch
*** Add File: src/log.ts
+export function log(level: string, msg: string) {
+  console.log(`[${level}] ${msg}`)
+  return { line: `${level}: ${msg}`, at: Date.now() }
+}
*** End Patch`)
console.log("added")
