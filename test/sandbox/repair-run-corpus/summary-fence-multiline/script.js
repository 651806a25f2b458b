await taskComplete(`Fixed the off-by-one in \`paginate()\`.

Before, the last page was dropped:

```ts
paginate(items, 10) // 9 pages for 95 items
```

Now `Math.ceil` is used and the new test `paginate.test.ts` covers it.`)
