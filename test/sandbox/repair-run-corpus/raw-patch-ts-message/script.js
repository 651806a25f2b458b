const result = await applyPatch(String.raw`*** Begin Patch
*** Update File: src/project/errors.ts
@@
   get message() {
     return `Project "${this.projectId}" was not found`
   }
 }
+
+export class MissingRalphSpec extends Schema.TaggedError<MissingRalphSpec>()("MissingRalphSpec", {
+  projectId: Schema.String,
+}) {
+  readonly message = `Project "${this.projectId}" is configured with gitFlow=\"ralph\" but is missing \"ralphSpec\"`
+}
*** End Patch`)
console.log(result)
