const header = "# Verifier notes\n\n"
const body = `## Proof cache

- `ProofCache` lives in `src/verifier/cache.ts`; `verify()` consults it first
- a hit returns the stored copy; a miss runs the prover and stores a cloned copy of `{ currentProof: request.currentProof }`
- `{ ttlMs, maxEntries }` come from `config.verifier.cache` (defaults `{ ttlMs: 30_000, maxEntries: 1_000 }`)

## Metrics

`verifier_cache_hits_total` and `verifier_cache_misses_total` are counters; `verifier_cache_size` is a gauge.
`
await writeFile({ path: "docs/verifier.md", content: header + body })
