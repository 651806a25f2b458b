await taskComplete(`Run \\`npm test\\` before pushing; \\`npm run build\\` now succeeds.`)
