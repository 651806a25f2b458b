await taskComplete(`Added a retry to the fetch helper (see `fetchWithRetry`), and documented it (`docs/net.md`).`)
