import { StringDecoder } from "node:string_decoder"
import * as v from "valibot"
import { CancelledError, ToolError } from "../errors.ts"
import { killGroup } from "./processes.ts"
import { defineTool, type Tool, type ToolContext } from "./tool.ts"
import { sandboxHint } from "./sandbox-hint.ts"
import { seconds } from "../util/duration.ts"
import { OutputCap } from "../util/output-cap.ts"

export const DEFAULT_TIMEOUT_MS = 120_000
export const MAX_TIMEOUT_MS = 240_000
/** Output kept in memory per command: the first and the last 1 MiB. */
const KEEP_BYTES = 2 * 1024 * 1024
/** How long to wait for the pipes after bash exits, when a background job still holds them. */
const PIPE_GRACE_MS = 250

function withOutput(text: string): string {
  return text ? `; output:\n${text}` : " (no output)"
}

/**
 * Runs `bash -c command` in ctx.directory with stdin from /dev/null and resolves with stdout and
 * stderr interleaved as written. bash leads its own process group, so a timeout or an abort of
 * ctx.signal kills everything the command started. `args` become the command's `"$@"`.
 */
export function runBash(
  command: string,
  ctx: ToolContext,
  options: { timeoutMs?: number; tool?: string; env?: Record<string, string>; args?: string[] } = {},
): Promise<string> {
  const { timeoutMs = DEFAULT_TIMEOUT_MS, tool = "bash" } = options
  if (ctx.signal.aborted) return Promise.reject(new CancelledError())
  return new Promise((resolve, reject) => {
    // One pipe for both streams keeps their order; the prefix is on line 1 so bash's
    // "line N" error messages still match the command. Parse errors of line 1 arrive on stderr.
    const positional = options.args ? [tool, ...options.args] : []
    const child = ctx.processes.spawn("bash", ["-c", `exec 2>&1; ${command}`, ...positional], {
      cwd: ctx.directory,
      ...(options.env ? { env: options.env } : {}),
    })
    const output = new OutputCap(KEEP_BYTES)
    // A decoder per pipe: a character split across chunks is decoded whole.
    const decoders = [new StringDecoder("utf8"), new StringDecoder("utf8")] as const
    child.stdout!.on("data", (chunk: Buffer) => output.push(decoders[0].write(chunk)))
    child.stderr!.on("data", (chunk: Buffer) => output.push(decoders[1].write(chunk)))

    let reason: "timeout" | "cancelled" | undefined
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
    let graceTimer: ReturnType<typeof setTimeout> | undefined
    const stop = (why: "timeout" | "cancelled") => {
      reason ??= why
      killGroup(child)
    }
    const timer = setTimeout(() => stop("timeout"), timeoutMs)
    const onAbort = () => stop("cancelled")
    ctx.signal.addEventListener("abort", onAbort, { once: true })

    let settled = false
    const settle = () => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(graceTimer)
      ctx.signal.removeEventListener("abort", onAbort)
      child.stdout!.destroy()
      child.stderr!.destroy()
      for (const decoder of decoders) output.push(decoder.end())
      const text = output.toString()
      if (reason === "cancelled") return reject(new CancelledError())
      if (reason === "timeout") {
        return reject(new ToolError(`${tool}: timed out after ${seconds(timeoutMs)}; output so far:\n${text}`))
      }
      if (!exit || exit.code === 0) return resolve(text)
      const status = exit.code === null ? `killed by ${exit.signal}` : `exit code ${exit.code}`
      const hint = sandboxHint(text, ctx.policy)
      reject(new ToolError(`${tool}: ${status}${withOutput(hint ? `${text}${text.endsWith("\n") || !text ? "" : "\n"}${hint}\n` : text)}`))
    }

    child.once("error", (error) => {
      exit = { code: 127, signal: null }
      output.push(`cannot start bash: ${error.message}\n`)
      settle()
    })
    child.once("exit", (code, signal) => {
      exit = { code, signal }
      // A background job (`server &`) may hold the pipes open; do not wait for it forever.
      graceTimer = setTimeout(settle, PIPE_GRACE_MS)
    })
    child.once("close", settle)
  })
}

const TimeoutMs = v.pipe(
  v.number(),
  v.integer(),
  v.minValue(1),
  v.maxValue(MAX_TIMEOUT_MS, `timeoutMs can be at most ${MAX_TIMEOUT_MS} (4 minutes)`),
)

export const shellTools: Tool[] = [
  defineTool({
    name: "bash",
    description: "Run a bash command in the working directory; returns stdout+stderr. timeoutMs: default 120000, max 240000; non-zero exit rejects.",
    params: v.object({ command: v.string(), timeoutMs: v.optional(TimeoutMs) }),
    result: v.string(),
    run: ({ command, timeoutMs }, ctx) => runBash(command, ctx, { timeoutMs }),
  }),
  defineTool({
    name: "gh",
    description:
      "Run the GitHub CLI, e.g. gh([\"pr\", \"view\", \"12\"]) (arguments as they are) or gh(\"pr view 12\") (split like a shell); returns its output.",
    params: v.union([v.string(), v.array(v.string())]),
    paramName: "args",
    result: v.string(),
    run: async (args, ctx) => {
      if (!Bun.which("gh", { PATH: process.env.PATH ?? "" })) {
        throw new ToolError("gh: the GitHub CLI (gh) is not installed on this machine; use bash with git or curl instead")
      }
      const options = { tool: "gh", env: { GH_PROMPT_DISABLED: "1", GH_NO_UPDATE_NOTIFIER: "1" } }
      if (typeof args === "string") return runBash(`gh ${args}`, ctx, options)
      // bash only merges the two streams and execs gh: the arguments are never parsed by it.
      return runBash('exec gh "$@"', ctx, { ...options, args })
    },
  }),
]
