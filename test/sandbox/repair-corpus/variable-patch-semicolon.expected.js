const patch = `--- a/src/config.ts
+++ b/src/config.ts
@@ -1,1 +1,1 @@
-export const url = "http://localhost:" + port
+export const url = \`http://localhost:\${port}\`
`; await applyPatch(patch)
