/**
 * The `clanka run` flags that `clanka batch` and `clanka worker` pass on to every task's run:
 * where and how scripts run (the executor and sandbox flags) and how the agent works (model,
 * turns, system text). They are checked here once, so that a mistake is one usage error rather
 * than every task failing the same way.
 */
import { resolve } from "node:path"
import { UsageError } from "../errors.ts"
import { repeated } from "../cli/argv.ts"
import { secondsFlag } from "../cli/duration.ts"
import { agentArgs, executorArgs } from "../cli/commands.ts"
import { sandboxRequest, tmpSize } from "../cli/sandbox-flags.ts"
import type { RunFlags } from "./run-task.ts"

type Args = Record<string, unknown>

const PLACE = ["directory", "ssh"]

/** The agent flags as `clanka run` arguments, checked. */
export function agentFlags(args: Args): string[] {
  wholeNumber("--max-turns", args["max-turns"], 1)
  wholeNumber("--compact-at", args["compact-at"], 1)
  wholeNumber("--max-depth", args["max-depth"], 0)
  secondsFlag("--turn-timeout", args["turn-timeout"] as string | undefined)
  return passOn(args, Object.keys(agentArgs))
}

/** The executor and sandbox flags as `clanka run` arguments, checked; the place flags apart. */
export function runFlags(args: Args, agent: string[]): RunFlags {
  if (args.sandbox !== undefined) sandboxRequest(args.sandbox as string, "auto")
  tmpSize(args["tmp-size"] as string | undefined)
  const rest = Object.keys(executorArgs).filter((name) => !PLACE.includes(name))
  return {
    place: passOn(args, PLACE),
    executor: passOn(args, rest),
    agent,
    base: resolve((args.directory as string | undefined) ?? "."),
  }
}

/** Whether any executor or sandbox flag was given (they belong to the worker in queue mode). */
export function executorFlagGiven(args: Args): string | undefined {
  const defaults: Record<string, unknown> = { upload: true, search: true }
  const name = Object.keys(executorArgs).find((key) => args[key] !== undefined && args[key] !== defaults[key])
  return name === undefined ? undefined : `--${name}`
}

/** `--name value` for each string flag given (each value of a repeatable one), `--[no-]name` for booleans. */
function passOn(args: Args, names: string[]): string[] {
  const out: string[] = []
  const defs = { ...executorArgs, ...agentArgs } as Record<string, { type: string; repeatable?: boolean; default?: unknown }>
  for (const name of names) {
    const value = args[name]
    const def = defs[name]!
    if (value === undefined) continue
    if (def.type === "boolean") {
      // A flag left at its default is not passed: the run's config files may then choose.
      if (value !== def.default) out.push(value ? `--${name}` : `--no-${name}`)
      continue
    }
    for (const each of def.repeatable ? repeated(value as string) : [value as string]) out.push(`--${name}`, each)
  }
  return out
}

function wholeNumber(flag: string, value: unknown, min: 0 | 1): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (String(value).trim() === "" || !Number.isSafeInteger(n) || n < min) throw new UsageError(`${flag} takes a ${min === 1 ? "positive " : ""}whole number, got "${value}"`)
  return n
}

/** A count flag: a whole number from `min`, else `fallback` when absent. */
export function countFlag(flag: string, value: string | undefined, min: 0 | 1, fallback: number): number {
  return wholeNumber(flag, value, min) ?? fallback
}

