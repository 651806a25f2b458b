import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { SandboxModes } from "../sandbox-policy.ts"
import { UsageError } from "../errors.ts"
import type { SandboxRequest } from "../executor/os-sandbox.ts"
import { type BackendRequest, BackendRequests } from "../executor/sandbox-backend.ts"

/** The --tmp-size value in bytes (1024-based K, M, G); undefined when absent. */
export function tmpSize(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const match = value.trim().match(/^(\d+)([KMG])?$/i)
  const bytes = match ? Number(match[1]) * 1024 ** " KMG".indexOf((match[2] ?? " ").toUpperCase()) : NaN
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new UsageError(`--tmp-size takes a size above zero in bytes or with K, M or G (e.g. 512M), got "${value}"`)
  return bytes
}

/**
 * The --sandbox value; `fallback` when absent. `auto` is what the agent passes a remote
 * `clanka executor` when no mode was chosen; the error names only the modes the help lists.
 */
export function sandboxRequest(value: string | undefined, fallback: SandboxRequest): SandboxRequest {
  if (value === undefined) return fallback
  if ((SandboxModes as readonly string[]).includes(value) || value === "auto") return value as SandboxRequest
  throw new UsageError(`--sandbox takes ${SandboxModes.slice(0, -1).join(", ")} or ${SandboxModes.at(-1)}, got "${value}"`)
}

/**
 * A writable root must exist: the sandbox binds only what is there, so a missing one would leave
 * every write under it refused. `flag` names where it came from (`--writable`, a file's key).
 */
export function checkWritableRoot(dir: string, flag: string): void {
  if (!existsSync(resolve(dir))) throw new UsageError(`${flag} ${dir} does not exist; create it first, or leave it out`)
}

/** The --sandbox-backend value, else CLANKA_SANDBOX_BACKEND, else auto. */
export function sandboxBackend(value: string | undefined, env: Record<string, string | undefined> = process.env): BackendRequest {
  const given = value ?? (env.CLANKA_SANDBOX_BACKEND || undefined)
  if (given === undefined) return "auto"
  if ((BackendRequests as readonly string[]).includes(given)) return given as BackendRequest
  const source = value === undefined ? "CLANKA_SANDBOX_BACKEND" : "--sandbox-backend"
  throw new UsageError(`${source} takes ${BackendRequests.join(", ")}, got "${given}"`)
}
