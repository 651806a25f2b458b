const design = String.raw`# Design: caching proofs

## Problem

` + "`verify(request)`" + String.raw` takes 2-4 s and is called again for every retry of the same request.

## Plan

1. add a ` + "`ProofCache`" + String.raw` class in `src/verifier/cache.ts`
2. on a miss, store a cloned copy of `{ currentProof: request.currentProof }`, keyed by `request.id`
3. expose `{ hits, misses }` on `/debug/vars` next to `verifier_latency_ms`
4. add a `--no-proof-cache` flag; it sets `maxEntries` to `0`

## Open questions

- should `clear()` also run on `SIGHUP`, like the config reload in `src\server\signals.ts`?
- is `structuredClone` available in the worker (Node >= 17), or do we need `v8.deserialize(v8.serialize(x))`?
`
await writeFile({ path: "docs/design/proof-cache.md", content: design })
