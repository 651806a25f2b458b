import type * as v from "valibot"

/** Exit codes of the command line (SPEC section 2). */
export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  executorLost: 3,
  interrupted: 130,
} as const

/**
 * An error whose message is meant for the user as it is: one line that says what to do.
 * The CLI prints `message` and exits with `exitCode`; no stack trace unless CLANKA_DEBUG=1.
 */
export class ClankaError extends Error {
  override name = "ClankaError"
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.failed,
  ) {
    super(message)
  }
}

/** Bad usage or bad input: unknown flag, missing key, unreadable file. */
export class UsageError extends ClankaError {
  override name = "UsageError"
  constructor(message: string) {
    super(message, ExitCode.usage)
  }
}

/** The executor went away: the remote died, ssh failed, the link dropped. */
export class ExecutorLostError extends ClankaError {
  override name = "ExecutorLostError"
  constructor(message: string) {
    super(message, ExitCode.executorLost)
  }
}

/** A script threw, did not parse, or hit its time limit. `message` is one line. */
export class ScriptError extends ClankaError {
  override name = "ScriptError"
  constructor(message: string) {
    super(message, ExitCode.failed)
  }
}

/** A tool call failed; the message is what the model and the user see. */
export class ToolError extends Error {
  override name = "ToolError"
}

/** The operation was cancelled through its AbortSignal. */
export class CancelledError extends Error {
  override name = "CancelledError"
  constructor(message = "cancelled") {
    super(message)
  }
}

/** Readable text for valibot issues: `path: message`, joined with "; ". */
export function formatIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .map((issue) => {
      const path = issue.path?.map((item) => String(item.key)).join(".")
      return path ? `${path}: ${issue.message}` : issue.message
    })
    .join("; ")
}

/** Parameters that do not match a tool's schema; the protocol answers -32602 with the issues. */
export class InvalidParamsError extends ToolError {
  override name = "InvalidParamsError"
  constructor(
    readonly tool: string,
    readonly issues: readonly v.BaseIssue<unknown>[],
  ) {
    super(`${tool}: invalid parameters: ${formatIssues(issues)}`)
  }
}

/** A call of a tool the executor does not have; the protocol answers -32602, like bad parameters. */
export class UnknownToolError extends ToolError {
  override name = "UnknownToolError"
  constructor(
    readonly tool: string,
    readonly known: readonly string[],
  ) {
    super(`unknown tool "${tool}"; tools: ${known.join(", ")}`)
  }
}
