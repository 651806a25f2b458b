await applyPatch(`*** Begin Patch
*** Add File: a.md
+Use \`a\`.
*** End Patch`); await applyPatch(`*** Begin Patch
*** Add File: b.md
+Use \`b\`.
*** End Patch`)
