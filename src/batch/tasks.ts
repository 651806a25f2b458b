/**
 * A batch's tasks file: one JSON object per line, `{"id"?, "prompt", "dir"? | "ssh"?, "model"?,
 * "maxBudgetUsd"?, "maxTurns"?}`. Every line is checked before any task runs: the first bad one
 * is a usage error that names its line. Blank lines are skipped (and still counted).
 */
import * as v from "valibot"
import { UsageError } from "../errors.ts"

const TaskSchema = v.strictObject(
  {
    id: v.optional(
      v.union(
        [v.pipe(v.string(), v.nonEmpty("id must not be empty")), v.pipe(v.number(), v.safeInteger("a numeric id must be a whole number"))],
        "id must be a string or a whole number",
      ),
    ),
    prompt: v.pipe(v.string("prompt must be a string"), v.trim(), v.nonEmpty("prompt must not be empty")),
    dir: v.optional(v.pipe(v.string("dir must be a string"), v.nonEmpty("dir must not be empty"))),
    ssh: v.optional(v.pipe(v.string("ssh must be a string"), v.nonEmpty("ssh must not be empty"))),
    model: v.optional(v.pipe(v.string("model must be a string"), v.nonEmpty("model must not be empty"))),
    maxBudgetUsd: v.optional(v.pipe(v.number("maxBudgetUsd must be a number"), v.gtValue(0, "maxBudgetUsd must be above 0"))),
    maxTurns: v.optional(v.pipe(v.number("maxTurns must be a number"), v.safeInteger("maxTurns must be a whole number"), v.minValue(1, "maxTurns must be at least 1"))),
  },
  // The same message callback serves a missing key (the prompt) and an unknown one (a typo).
  (issue) =>
    issue.expected === "never"
      ? `unknown key "${String(issue.path?.at(-1)?.key)}" (a task has id, prompt, dir, ssh, model, maxBudgetUsd, maxTurns)`
      : `missing ${String(issue.path?.at(-1)?.key)}`,
)

export type TaskSpec = v.InferOutput<typeof TaskSchema>

/** A task as the batch runs it: its id is the one given, else its line number. */
export interface Task extends Omit<TaskSpec, "id"> {
  id: string | number
  line: number
}

/** A task as written (a line of the file, a job on the queue), or what is wrong with it. */
export function checkTask(value: unknown): TaskSpec | string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "a task is a JSON object with a prompt"
  const parsed = v.safeParse(TaskSchema, value)
  if (!parsed.success) return parsed.issues[0].message
  if (parsed.output.dir !== undefined && parsed.output.ssh !== undefined) return "dir and ssh both say where the task runs; give one"
  return parsed.output
}

/** The tasks of a JSONL text; `source` names it in errors. */
export function parseTasks(text: string, source: string): Task[] {
  const tasks: Task[] = []
  const seen = new Map<string, number>()
  // A byte-order mark (Windows editors save one) is not part of the first line.
  const lines = text.replace(/^\uFEFF/, "").split("\n")
  for (const [index, raw] of lines.entries()) {
    const line = index + 1
    if (!raw.trim()) continue
    const bad = (problem: string) => new UsageError(`${source}:${line}: ${problem}`)
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch (error) {
      throw bad(`not JSON: ${(error as Error).message}`)
    }
    const spec = checkTask(value)
    if (typeof spec === "string") throw bad(spec)
    const id = spec.id ?? line
    // Results and --skip-done find a task by its id: two tasks cannot share one.
    const key = String(id)
    const earlier = seen.get(key)
    if (earlier !== undefined) throw bad(`id ${JSON.stringify(id)} is also the id of line ${earlier}; ids must be unique`)
    seen.set(key, line)
    tasks.push({ ...spec, id, line })
  }
  if (tasks.length === 0) throw new UsageError(`${source} holds no task (one JSON object per line)`)
  return tasks
}
