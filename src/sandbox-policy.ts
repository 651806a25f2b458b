/**
 * The sandbox policy an executor enforces (SPEC section 9: --sandbox, --network, --writable). Apart
 * from the rest of the contract (contract.ts re-exports it) and free of valibot: the agent plans
 * its sandbox from these before it loads the wire's schemas.
 */
export const SandboxModes = ["workspace-write", "read-only", "off"] as const
export type SandboxMode = (typeof SandboxModes)[number]

export interface SandboxPolicy {
  /** workspace-write: writes only inside the workspace and `writable`; read-only: no writes; off: anything. */
  mode: SandboxMode
  /** Whether scripts may reach the network (loopback stays usable either way). */
  network: boolean
  /** Absolute paths of further writable roots (--writable), besides the workspace and /tmp. */
  writable: readonly string[]
  /** Bytes the sandbox's private /tmp may hold (--tmp-size; default 1 GiB). */
  tmpSize?: number
  /** Absolute paths of credential stores left visible to scripts (--readable); the rest are hidden. */
  readable?: readonly string[]
  /** The OS sandbox that enforces it (none when off, or for a library's in-process executor). */
  backend?: SandboxBackend
}

/** The OS sandboxes: bubblewrap or Landlock with seccomp on Linux, sandbox-exec on macOS. */
export const SandboxBackends = ["bwrap", "landlock", "sandbox-exec"] as const
export type SandboxBackend = (typeof SandboxBackends)[number]

/** No restriction: what a library user's LocalExecutor enforces unless told otherwise. */
export const UNRESTRICTED: SandboxPolicy = { mode: "off", network: true, writable: [] }
