const out = await applyPatch(`*** Begin Patch
*** Add File: src/report.ts
+import { sql } from "./db"
+
+export function header(title: string, tags: string[]): string {
+  return `# ${title}${tags.length ? ` [${tags.join(", ")}]` : ""}`
+}
+
+export const byOwner = (owner: string) => sql`SELECT * FROM repos WHERE owner = ${owner}`
+
+export const debug = (value: unknown) => `value: ${JSON.stringify({ value }, null, 2)}`
*** End Patch`)
console.log(out)
