let summary = `Moved the config loader to `src/config.ts`.`
summary += "\n\nTests: 42 passed."
await taskComplete(summary)
