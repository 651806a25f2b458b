const docs = {
  "docs/proof-cache.md": `# Proof cache

The verifier used to recompute every proof on each request. \`ProofCache\` keeps the last result per
request so that retries and duplicate deliveries are answered without running the prover again.

## Behaviour

- `ProofCache.get(request.id)` returns the cached entry, or `undefined` on a miss
- on a miss, `verify(request)` runs; we then store a cloned copy of `{ currentProof: request.currentProof }`
- entries expire after `ttlMs` (default `30_000`), and `ProofCache.clear()` drops them all
- the key is `request.id + ":" + request.version`, so a new version never hits an old entry
- `stats()` returns `{ hits, misses, evictions }`; the numbers reset with `clear()`

## Why a clone?

`request.currentProof` is mutated by `advance()`; keeping a reference would let later calls change
what the cache returns. `structuredClone` is enough because proofs are plain data
(`{ steps: Step[], root: string }`), and it is faster than `JSON.parse(JSON.stringify(x))`.

## Limits

The cache holds at most `maxEntries` (default `1_000`) and evicts the least recently used entry.
Set `maxEntries: 0` to turn it off, e.g. in tests that count calls to `verify`.
`,
  ".changeset/proof-cache.md": `---\n"@acme/verifier": minor\n---\n\nAdd \\`ProofCache\\`: repeated requests no longer rerun the prover.\n`,
}
for (const [path, content] of Object.entries(docs)) await writeFile({ path, content })
