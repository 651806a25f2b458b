await applyPatch(`*** Begin Patch
*** Update File: src/log.ts
@@
 export function describe(user: { name: string; age: number }): string {
-  return `${user.name} (${user.age})`
+  const age = user.age === 1 ? "1 year" : `${user.age} years`
+  return `${user.name} (${age})`
 }
*** End Patch`)
console.log("patched")
