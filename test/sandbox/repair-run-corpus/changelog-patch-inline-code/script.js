await applyPatch(`*** Begin Patch
*** Update File: CHANGELOG.md
@@
 # Changelog
 
+## 1.2.1
+
+- Fixed `parseArgs` dropping the value after `--out=`.
+- `tally --version` prints the commit too.
+
 ## 1.2.0
*** End Patch`)
