await applyPatch(`*** Begin Patch
*** Update File: scripts/test.sh
@@
 #!/bin/sh
-npm test
+start=`date +%s`
+npm test -- --reporter="${REPORTER:-dot}"
+echo "took $(( `date +%s` - start ))s"
*** End Patch`)
