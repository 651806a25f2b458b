import { SandboxModes } from "../contract.ts"
import { UsageError } from "../errors.ts"
import type { SandboxRequest } from "../executor/os-sandbox.ts"

/** The OS sandbox's flags, shared by run, exec, tool and executor. */
export const sandboxArgs = {
  sandbox: {
    type: "string",
    description: "workspace-write (default where bubblewrap works), read-only or off",
    valueHint: "MODE",
  },
  network: { type: "boolean", description: "let scripts reach the network from inside the sandbox" },
  writable: { type: "string", description: "another writable directory (repeatable)", valueHint: "DIR", repeatable: true },
} as const

/** The --sandbox value; `fallback` when absent. */
export function sandboxRequest(value: string | undefined, fallback: SandboxRequest): SandboxRequest {
  if (value === undefined) return fallback
  if ((SandboxModes as readonly string[]).includes(value) || value === "auto") return value as SandboxRequest
  throw new UsageError(`--sandbox takes ${SandboxModes.join(", ")} or auto, got "${value}"`)
}
