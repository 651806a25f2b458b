const section = `## Proof cache

- `ProofCache.get(id)` returns `undefined` on a miss
- the stored value is a cloned copy of `{ currentProof: request.currentProof }`, never the request itself
- `clear()` drops every entry; `stats()` returns `{ hits, misses }``
await writeFile({ path: "NOTES.md", content: "# Notes\n\n" + section + "\n" })
