/**
 * A job read from the queue, checked before it runs. Whoever can write to Redis can put a job
 * there, so it is taken only in the shape `clanka batch --queue` gives it: a task as a tasks
 * file holds it, and agent flags among those a batch passes on. Anything else (an executor,
 * sandbox, --env or session flag) would let the queue choose how the worker's runs are confined.
 */
import { agentArgs } from "../../cli/commands.ts"
import { parseSshTarget } from "../../executor/ssh-target.ts"
import { checkTask } from "../tasks.ts"
import type { TaskJob, TaskProgress } from "./jobs.ts"

export class BadJob extends Error {
  override name = "BadJob"
}

/** The flags a batch gives its tasks' runs (`--name value` pairs). */
const AGENT_FLAGS = new Set(Object.keys(agentArgs).map((name) => `--${name}`))

/**
 * `sshHosts`: the hosts of the worker's own --ssh targets. A task's `ssh` may name one of them
 * (any directory there, as `dir` may name any directory here), never another host the worker's
 * ssh keys and config reach; on a worker with --ssh, a task's `dir` would move it off those hosts
 * onto the worker's own machine.
 */
export function checkJob(data: unknown, sshHosts: readonly string[] = []): TaskJob {
  const bad = (problem: string) => new BadJob(`not a clanka task: ${problem}`)
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw bad("the job's data is not an object")
  const { batch, task, agent, retries } = data as Record<string, unknown>
  // A batch id is a UUID: it names Redis keys and shows in the worker's log.
  if (typeof batch !== "string" || !/^[0-9A-Za-z][0-9A-Za-z-]{0,63}$/.test(batch)) throw bad("the batch id is not one clanka batch gives")
  if (!Number.isSafeInteger(retries) || (retries as number) < 0) throw bad("retries is not a whole number")
  if (!Array.isArray(agent) || agent.length % 2 !== 0 || !agent.every((word) => typeof word === "string")) throw bad("agent is not a list of flags and values")
  for (let index = 0; index < agent.length; index += 2) {
    if (!AGENT_FLAGS.has(agent[index] as string)) throw bad(`agent flag ${JSON.stringify(agent[index])} is not one a batch gives its tasks`)
  }
  if (typeof task !== "object" || task === null || Array.isArray(task)) throw bad("the task is not an object")
  const { line, ...spec } = task as Record<string, unknown>
  const checked = checkTask(spec)
  if (typeof checked === "string") throw bad(checked)
  if (checked.id === undefined) throw bad("the task has no id")
  if (checked.ssh !== undefined) {
    let host: string
    try {
      host = parseSshTarget(checked.ssh).host
    } catch {
      throw bad(`ssh ${JSON.stringify(checked.ssh)} is not [USER@]HOST[:DIR]`)
    }
    if (!sshHosts.includes(host)) throw bad(`ssh host ${JSON.stringify(host)} is not one of this worker's --ssh hosts${sshHosts.length ? ` (${sshHosts.join(", ")})` : " (it has none)"}`)
  }
  if (checked.dir !== undefined && sshHosts.length > 0) throw bad(`this worker runs tasks on its --ssh hosts (${sshHosts.join(", ")}); a task's dir would run it on the worker's own machine`)
  return { batch, task: { ...checked, id: checked.id, line: typeof line === "number" ? line : 0 }, agent: agent as string[], retries: retries as number }
}

/** A job's progress as a worker left it; what is not in that shape is passed over. */
export function checkProgress(value: unknown): TaskProgress {
  if (typeof value !== "object" || value === null) return {}
  const { sessionId, attempts, handedBack } = value as Record<string, unknown>
  return {
    ...(typeof sessionId === "string" && /^[0-9a-f-]{36}$/.test(sessionId) ? { sessionId } : {}),
    ...(Number.isSafeInteger(attempts) && (attempts as number) >= 0 ? { attempts: attempts as number } : {}),
    ...(handedBack === true ? { handedBack } : {}),
  }
}
