await applyPatch(`--- a/src/url.ts
+++ b/src/url.ts
@@ -1,3 +1,3 @@
 export function repoUrl(owner: string, name: string): string {
-  return "https://github.com/" + owner + "/" + name
+  return `https://github.com/${owner}/${name}`
 }
`)
