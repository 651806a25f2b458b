const result = await applyPatch(`*** Begin Patch
*** Update File: src/greet.ts
@@
 export function greet(name: string): string {
-  return "Hello, " + name + "!"
+  return `Hello, ${name}!`
 }
*** Add File: src/farewell.ts
+export const farewell = (name: string) => `Bye, ${name}.`
*** Add File: docs/greet.md
+Call `greet(name)`.
*** End Patch`)
console.log(result)
