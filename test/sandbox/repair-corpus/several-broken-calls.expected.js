const files = ["src/a.ts", "src/b.ts"]
await applyPatch(`*** Begin Patch
*** Update File: src/a.ts
@@
-const msg = "a: " + value
+const msg = \`a: \${value}\`
*** End Patch`)
console.log(`patched ${files[0]}`)
await writeFile({ path: "CHANGELOG.md", content: `- use \`template literals\` in ${files.length} files
` })
await taskComplete(`Updated \`src/a.ts\` and \`CHANGELOG.md\`.`)
