const doc = String.raw`# Remote

The existing ` + "`EventLogRemote`" + ` protocol is kept:

\`\`\`ts
EventLogRemote.fromWebSocket(\`ws://\${host}/sync\`)
\`\`\`
`
await writeFile({ path: "docs/remote.md", content: doc })
