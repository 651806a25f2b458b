/**
 * process.stdout and process.stderr, made when a command first needs them: making them builds
 * Node's stream machinery, several milliseconds that `run` and `exec` spend only once their
 * executor's process has started (its start and this work then overlap). A closed pipe (a reader
 * that left) must not crash with a stack trace: commands that stream watch stdout themselves
 * (interrupt.ts) and stop.
 */
let made = false

export function useStreams(): void {
  if (made) return
  made = true
  process.stdout.on("error", () => {})
  process.stderr.on("error", () => {})
}

/** Whether clanka's own lines must go through the streams, in order with what the command wrote. */
export function streamsMade(): boolean {
  return made
}
