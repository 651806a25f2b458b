const patch = `*** Begin Patch
*** Add File: src/paths.js
+export const root = `/srv/app`;
+export const logs = `${root}/logs`;
*** End Patch`;
const out = await applyPatch(patch);
console.log(`applied: ${out}`);
