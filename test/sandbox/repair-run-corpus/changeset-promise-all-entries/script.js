await Promise.all(
  Object.entries({
    ".changeset/event-log-remote.md": `---\n"@effect/experimental": minor\n---\n\nAdd \\`EventLogRemote.fromWebSocket\\`, which reconnects with backoff.\n`,
    ".changeset/event-journal-idb.md": `---\n"@effect/experimental": patch\n---\n\n\\`EventJournal.makeIndexedDb\\` no longer drops entries written while \\`upgradeneeded\\` runs.\n`,
  }).map(([path, content]) => writeFile({ path, content })),
)
