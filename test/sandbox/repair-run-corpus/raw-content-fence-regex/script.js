await writeFile({
  path: "docs/versions.md",
  content: String.raw`# Version strings

`parseVersion` accepts `1.2.3`, `v1.2.3` and `1.2.3-rc.1`; anything else throws a `VersionError`.

```ts
const VERSION = /^v?(\d+)\.(\d+)\.(\d+)(?:-([\w.]+))?$/

export function parseVersion(input: string): Version {
  const match = VERSION.exec(input.trim())
  if (!match) throw new VersionError(`Not a version: "${input}"`)
  const [, major, minor, patch, pre] = match
  return { major: Number(major), minor: Number(minor), patch: Number(patch), pre }
}
```

`formatVersion(v)` is the inverse: it prints `${major}.${minor}.${patch}` and appends `-${pre}`
when there is a pre-release tag.
`,
})
console.log("docs/versions.md written")
