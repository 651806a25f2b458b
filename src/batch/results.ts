/**
 * Result lines: one JSON object per finished task, `{"id","sessionId","exitCode","costUsd","turns",
 * "durationMs","summary","error"}` in that order, and the reading of an earlier run's lines for
 * `--skip-done`.
 */
import { readFile } from "node:fs/promises"
import { UsageError } from "../errors.ts"
import { jsonLine } from "../output/json-line.ts"
import type { TaskResult } from "./run-task.ts"

export function resultLine(result: TaskResult): string {
  const { id, sessionId, exitCode, costUsd, turns, durationMs, summary, error } = result
  return jsonLine({ id, sessionId, exitCode, costUsd, turns, durationMs, summary, error })
}

/**
 * The ids (as text: a task's id 3 and "3" are the same task) that finished with exit code 0 in an
 * earlier run's results. Lines that are not result objects (a cut-off last line) are passed over.
 */
export async function skipDone(file: string): Promise<Set<string>> {
  let text: string
  try {
    text = await readFile(file, "utf8")
  } catch (error) {
    throw new UsageError(`--skip-done ${file}: cannot read it: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  const done = new Set<string>()
  for (const line of text.split("\n")) {
    if (!line.trim()) continue
    let value: any
    try {
      value = JSON.parse(line)
    } catch {
      continue
    }
    if (value && (typeof value.id === "string" || typeof value.id === "number") && value.exitCode === 0) done.add(String(value.id))
  }
  return done
}
