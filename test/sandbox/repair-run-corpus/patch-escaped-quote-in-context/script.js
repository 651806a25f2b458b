await applyPatch(`*** Begin Patch
*** Update File: src/shout.ts
@@
-export const shout = (word: string) => console.log("say \"" + word + "\"")
+export const shout = (word: string) => console.log(`say "${word.toUpperCase()}"`)
*** End Patch`)
