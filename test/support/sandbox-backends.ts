// The OS sandbox's Linux backends, for attack suites that run once against each. Under CI a
// backend that cannot run is an error, not a skip: .ci/run installs bubblewrap, the kernel has
// Landlock, and a silently skipped sandbox test proves nothing.
import { osSandboxWorks } from "../../src/executor/os-sandbox.ts"
import { landlockAbi } from "../../src/executor/landlock-ruleset.ts"

export interface Backend {
  name: "bwrap" | "landlock"
  available: boolean
  /** The environment that forces it. */
  env: Record<string, string>
}

export const BWRAP: Backend = { name: "bwrap", available: osSandboxWorks(), env: { CLANKA_SANDBOX_BACKEND: "bwrap" } }
export const LANDLOCK: Backend = { name: "landlock", available: landlockAbi() > 0, env: { CLANKA_SANDBOX_BACKEND: "landlock" } }
export const BACKENDS = [BWRAP, LANDLOCK]

if (process.env.CI) {
  if (!BWRAP.available) throw new Error("bwrap is missing or cannot create namespaces; .ci/run installs bubblewrap")
  if (!LANDLOCK.available) throw new Error("the kernel offers no Landlock; the Landlock sandbox's tests need Linux 5.13 or later with landlock enabled")
}

/** What a write refused by the backend prints (touch, bash redirections). */
export function refusedWrite(backend: Backend): string {
  return backend.name === "bwrap" ? "Read-only file system" : "Permission denied"
}
