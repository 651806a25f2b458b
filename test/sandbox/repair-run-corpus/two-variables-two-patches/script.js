const first = `*** Begin Patch
*** Add File: src/a.ts
+export const a = (x: number) => `a=${x}`
*** End Patch`
const second = `*** Begin Patch
*** Add File: src/b.ts
+export const b = (y: string) => `b=${y.trim()}`
*** End Patch`
await applyPatch(first)
await applyPatch(second)
