await applyPatch(`*** Begin Patch
*** Update File: docs/faq.md
@@
-Quote code with backticks.
+Quote code with backticks: `like this`.
*** End Patch`)
console.log("escaped the ` in the docs")
