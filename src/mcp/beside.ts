/**
 * Stdio MCP servers beside a sandboxed executor rather than inside its sandbox: started by the
 * process that starts the executor's sandbox (the agent for a local executor; the outer `clanka
 * executor` on an --ssh host), each in an OS sandbox of its own with the executor's write and
 * network policy. No script can read a server's environment (a token) or its memory (under
 * bubblewrap it has its own pid namespace, so not even its command line; under Landlock, ptrace
 * rules keep its /proc closed); the executor calls its tools through the agent-call path.
 */
import { resolve } from "node:path"
import type { SandboxPolicy, StdioMcpServer } from "../contract.ts"
import { sandboxedArgv } from "../executor/os-sandbox.ts"
import { selfCommand } from "../executor/self.ts"
import { ProcessGuard } from "../tools/process-guard.ts"
import { type AgentSideMcp, connectAll } from "./agent-side.ts"
import { stdioConnection } from "./stdio.ts"

export interface BesidePlace {
  /** The executor's workspace (absolute, real path): the servers' default directory. */
  workspace: string
  /** The executor's sandbox: each server gets the same one (off: none). */
  policy: SandboxPolicy
  /** The environment the executor gets, which the servers get too (plus their own `env`). */
  env: Record<string, string>
}

export function startServersBeside(servers: Record<string, StdioMcpServer>, place: BesidePlace): Promise<AgentSideMcp> {
  // Tagged like the tools' processes: closing (or the guardian, if this process is killed) ends
  // the servers and whatever they started, with or without a sandbox around them.
  const guard = new ProcessGuard()
  guard.arm()
  const starts = Object.entries(servers).map(([name, server]) => ({
    name,
    startupTimeoutSec: server.startupTimeoutSec,
    connection: () => {
      const cwd = resolve(place.workspace, server.cwd ?? ".")
      // Inside bubblewrap a missing program is only bwrap's complaint on stderr: said here plainly.
      if (!Bun.which(server.command, { PATH: server.env?.PATH ?? place.env.PATH ?? "/usr/bin:/bin", cwd })) return { error: `cannot run its command: ${server.command} was not found` }
      return stdioConnection(name, server, {
        directory: place.workspace,
        env: place.env,
        tag: guard.env,
        // What the executor's sandbox shows under the private /tmp (clanka's own program, when it
        // runs from there) the server sees too, as it did when it ran inside that sandbox.
        wrap: (argv, dir) => sandboxedArgv(argv, place.workspace, place.policy, { search: false, cwd: dir, readable: [dir, ...selfCommand()] }),
      })
    },
  }))
  return connectAll(starts, () => guard.killAll())
}
