await applyPatch(`*** Begin Patch
*** Add File: test/format.test.ts
+import { expect, test } from "bun:test"
+import { format } from "../src/format"
+
+test.each([
+  [1, "1 line"],
+  [2, "2 lines"],
+])("format(%d)", (n, expected) => {
+  expect(format(n)).toBe(expected)
+  expect(`${format(n)}!`).toBe(`${expected}!`)
+})
*** End Patch`)
