await taskComplete(`Run \`npm test\` and `npm run lint` before merging; both pass now.`)
