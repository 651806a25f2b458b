const doc = String.raw`Paths such as C:\data\x and \d+ stay as typed; the existing ` + "`EventLogRemote`" + String.raw` protocol is kept.`
await writeFile({ path: "docs/remote.md", content: doc })
