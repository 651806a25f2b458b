const result = await applyPatch(`*** Begin Patch
*** Update File: docs/install.md
@@
 # Install
 
-Download the binary.
+Download the binary, or build it:
+
+```sh
+git clone https://example.com/tally.git
+cd tally && make
+```
 
 ## Verify
*** End Patch`)
console.log(result)
