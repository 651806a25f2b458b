const result = await applyPatch(`*** Begin Patch
*** Update File: src/greet.ts
@@ export function greet(name: string): string {
-  return "Hello, " + name + "!"
+  return \`Hello, \${name}!\`
 }
*** End Patch`)
console.log(result)
