await applyPatch(`*** Begin Patch
*** Update File: docs/guide.md
@@
 1. Install.
-2. Run.
+2. Run it on a folder:
+
+   ```sh
+   tally ./src --format json
+   ```
+
+   The output maps each language to `{ files, lines }`, e.g. `{ "ts": { "files": 3, "lines": 120 } }`.
*** End Patch`)
