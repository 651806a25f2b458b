import type { SandboxPolicy } from "../contract.ts"

/** How a refused write reads: bubblewrap's read-only mounts, Landlock's refusal. */
const READ_ONLY_FS = /Read-only file system|EROFS/
const DENIED = /Permission denied|EACCES|Operation not permitted|EPERM/
/** Names of the protected paths (protected-paths.ts) as a failed command prints them. */
const PROTECTED = /\.git\b|clanka\.json|\.mcp\.json|\.clanka\b/
const NO_NETWORK = /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|EAI_AGAIN|getaddrinfo|Unable to connect|ConnectionRefused|Connection refused|ECONNREFUSED|Failed to connect/i

/**
 * A line that says a failure came from the sandbox and which flag allows what failed, when the
 * output of a failed command or request looks like it; empty otherwise.
 */
export function sandboxHint(output: string, policy: SandboxPolicy): string {
  const landlock = policy.backend === "landlock"
  if (policy.mode !== "off" && (READ_ONLY_FS.test(output) || (landlock && DENIED.test(output)))) {
    const tmp = landlock ? "$TMPDIR" : "/tmp"
    if (policy.mode === "read-only") return `[sandbox: the file system is read-only${landlock ? " but for $TMPDIR" : ""} (--sandbox read-only); run with --sandbox workspace-write to allow writes in the workspace]`
    return PROTECTED.test(output)
      ? "[sandbox: git hooks and config, clanka.json, .mcp.json and .clanka/ stay read-only in the workspace and --writable DIRs; pass --writable PATH naming one to allow it]"
      : `[sandbox: only the workspace, ${tmp} and --writable DIRs are writable (--sandbox workspace-write); pass --writable DIR, or --sandbox off]`
  }
  if (policy.mode !== "off" && !policy.network && NO_NETWORK.test(output)) {
    return landlock
      ? "[sandbox: the network is off (loopback too, under Landlock); pass --network to allow it]"
      : "[sandbox: the network is off (only the sandbox's own loopback works); pass --network to allow it]"
  }
  return ""
}
