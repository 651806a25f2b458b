const fixed = ["lexer", "parser"]
const summary = `Fixed ${fixed.length} modules (${fixed.join(" and ")}); `npm test` passes.`
await taskComplete(summary)
