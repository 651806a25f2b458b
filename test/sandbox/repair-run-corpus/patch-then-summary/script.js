await applyPatch(`*** Begin Patch
*** Update File: src/sum.ts
@@
-export const sum = (xs: number[]) => xs.reduce((a, b) => a + b)
+export const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
+export const describeSum = (xs: number[]) => `sum of ${xs.length} numbers: ${sum(xs)}`
*** End Patch`)
await taskComplete(`Gave `sum` an initial value so `sum([])` returns 0 instead of throwing, and added `describeSum`.`)
