await applyPatch(String.raw`*** Begin Patch
*** Update File: src/cache.ts
@@
   set(request: ProofRequest) {
-    this.entries.set(request.id, { proof: request.currentProof, at: Date.now() })
+    if (!request.currentProof) throw new Error(`Request "${request.id}" has no \"currentProof\"`)
+    this.entries.set(`${request.id}:${request.version}`, { ...structuredClone({ currentProof: request.currentProof }), at: Date.now() })
   }
*** End Patch`)
await taskComplete(`ProofCache.set now stores a cloned copy of `{ currentProof: request.currentProof }` keyed by `${request.id}:${request.version}`, and throws when `currentProof` is missing.`)
