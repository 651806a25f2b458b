let summary = `Renamed \`fetchUser\` to \`loadUser\` everywhere.`
summary += "\nAll tests pass."
await taskComplete(summary)
