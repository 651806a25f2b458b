await applyPatch(`*** Begin Patch
*** Update File: src/errors.ts
@@
 export class InvalidGitFlow extends Data.TaggedError("InvalidGitFlow")<{ projectId: string; flow: string }> {
   get message() {
-    return "invalid git flow"
+    return `Project "${this.projectId}" has gitFlow=\"${this.flow}\"; expected \"trunk\" or \"ralph\"`
   }
 }
*** End Patch`)
const changesets = {
  ".changeset/invalid-git-flow-message.md": `---\n"@acme/projects": patch\n---\n\n\\`InvalidGitFlow\\` now names the project and the flow it found.\n`,
}
for (const [path, content] of Object.entries(changesets)) await writeFile({ path, content })
