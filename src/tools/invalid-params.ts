// Kept apart from the registry so that the protocol and the remote client can use it without
// loading every tool.
import type * as v from "valibot"
import { ToolError } from "../errors.ts"

/** Readable text for valibot issues: `path: message`, joined with "; ". */
export function formatIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .map((issue) => {
      const path = issue.path?.map((item) => String(item.key)).join(".")
      return path ? `${path}: ${issue.message}` : issue.message
    })
    .join("; ")
}

/** Thrown for parameters that do not match a tool's schema; the protocol maps it to -32602. */
export class InvalidParamsError extends ToolError {
  override name = "InvalidParamsError"
  constructor(
    readonly tool: string,
    readonly issues: readonly v.BaseIssue<unknown>[],
  ) {
    super(`${tool}: invalid parameters: ${formatIssues(issues)}`)
  }
}
