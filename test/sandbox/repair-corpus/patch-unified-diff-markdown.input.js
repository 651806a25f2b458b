await applyPatch(`diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -3,3 +3,5 @@
 ## Install
 
-Run npm install.
+Run `npm install`, then `npm run build`.
+
+Set `DEBUG=1` to see every request.
`)
console.log(await bash({ command: "git diff --stat" }))
