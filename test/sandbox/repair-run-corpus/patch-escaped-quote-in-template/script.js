await applyPatch(`*** Begin Patch
*** Update File: src/config.ts
@@
   const value = env[key]
-  if (!value) throw new Error("missing " + key)
+  if (!value) throw new Error(`Missing \"${key}\": set it in .env or export it`)
   return value
*** End Patch`)
