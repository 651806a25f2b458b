const body = String.raw`## What

Replace the hand-written retry loop in ` + "`src/sync/client.ts`" + String.raw` with ` + "`Effect.retry`" + String.raw` and a capped exponential schedule.

## Why

The loop retried forever on a ` + "`401`" + String.raw`, and kept a reference to ` + "`{ currentProof: request.currentProof }`" + String.raw` across attempts.

## How to test

```sh
pnpm vitest run test/sync/client.test.ts -t "retries"
SYNC_URL=ws://localhost:3000 pnpm tsx scripts/soak.ts --minutes 5
```

- [x] `pnpm check` passes
- [x] `pnpm lint --fix` left nothing to commit
`
await taskComplete(body)
