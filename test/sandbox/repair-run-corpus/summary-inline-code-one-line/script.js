await taskComplete(`Renamed `parseArgs` to `parseArguments` in `src/cli.ts` and updated its 3 callers.`)
