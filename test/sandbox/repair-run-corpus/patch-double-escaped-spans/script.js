await applyPatch(`*** Begin Patch
*** Add File: docs/cli.md
+# CLI
+
+\\`tally <dir>\\` counts the lines under \\`<dir>\\`.
+Use \\`--by-author\\` to group by the last author.
*** End Patch`)
