import { realpathSync, statSync } from "node:fs"
import { resolve } from "node:path"
import { defineCommand } from "./define-command.ts"
import { executor as spec } from "./commands.ts"
import type { SandboxPolicy } from "../contract.ts"
import { ExitCode, UsageError } from "../errors.ts"
import { INSIDE_VARIABLE } from "../executor/inside.ts"
import { repeated } from "./argv.ts"
import { maxScripts } from "./max-scripts.ts"
import { checkWritableRoot, sandboxBackend, sandboxRequest, tmpSize } from "./sandbox-flags.ts"

export default defineCommand({
  ...spec,
  async run({ args }) {
    const directory = resolve(args.directory ?? ".")
    let isDirectory = false
    try {
      isDirectory = statSync(directory).isDirectory()
    } catch {
      // reported below
    }
    if (!isDirectory) throw new UsageError(`executor directory ${directory} does not exist; pass an existing directory with -C`)
    const request = sandboxRequest(args.sandbox, "off")
    // Serving here (not starting a sandbox around itself): the environment's probes run while the
    // modules load.
    const serving = request === "off" || Boolean(process.env[INSIDE_VARIABLE])
    if (serving) {
      const [{ knownShellVersion, startEnvironment }, { SHELL_VERSION_VARIABLE }] = await Promise.all([import("../executor/environment.ts"), import("../executor/shell-version.ts")])
      knownShellVersion(process.env[SHELL_VERSION_VARIABLE])
      // The agent's word is for this process, not for what the scripts run.
      delete process.env[SHELL_VERSION_VARIABLE]
      startEnvironment(directory)
    }
    const scripts = maxScripts(args["max-scripts"])
    const writable = repeated(args.writable)
    for (const dir of writable) checkWritableRoot(dir, "--writable")
    const hardening = { tmpSize: tmpSize(args["tmp-size"]), readable: repeated(args.readable) }
    const backend = sandboxBackend(args["sandbox-backend"])
    let policy: SandboxPolicy = { mode: request === "auto" ? "off" : request, network: args.network || request === "off", writable, ...hardening }
    if (request !== "off" && process.env[INSIDE_VARIABLE]) {
      // Inside: the sandbox outside says which one it is.
      if (backend !== "auto") policy = { ...policy, backend }
    } else if (request !== "off") {
      // Asked from outside (ssh, a shell): start the same executor inside the OS sandbox.
      const { resolveSandbox } = await import("../executor/os-sandbox.ts")
      policy = (await resolveSandbox(request, args.network ?? false, writable, { ...hardening, backend })).policy
      if (policy.mode !== "off") {
        // Started by ssh or by hand, for whatever comes: the index directory is made ready.
        if (args.search !== false) (await import("../tools/semantic/location.ts")).prepareSearchIndexDir(realpathSync(directory))
        return serveSandboxed(realpathSync(directory), policy, args.search !== false, scripts)
      }
    }
    const [{ LocalExecutor }, { serveExecutor }, { fileSink, stoppable }] = await Promise.all([
      import("../executor/local.ts"),
      import("../protocol/server.ts"),
      import("../protocol/bun-stdio.ts"),
    ])
    const executor = new LocalExecutor({ directory, policy, search: args.search !== false, ...(scripts === undefined ? {} : { maxScripts: scripts }) })
    // The protocol's stdio, without Node's streams (bun-stdio.ts).
    const stdin = stoppable(Bun.stdin.stream())
    const stdout = fileSink(Bun.stdout.writer())
    // Asked to stop: the same as the agent going away, so what the scripts started dies too.
    let stopping = false
    for (const signal of ["SIGTERM", "SIGHUP"] as const) {
      process.once(signal, () => {
        stopping = true
        stdin.stop()
      })
    }
    await serveExecutor(executor, stdin.input, stdout, {
      log: (line) => stopping || quietStderr().write(`clanka executor: ${line}\n`),
    })
    await stdout.end()
    // Served and closed: what the scripts and MCP servers started has been ended, and waiting for
    // the event loop to drain (workers winding down) would only keep the agent waiting.
    process.exit(ExitCode.ok)
  },
})

/** process.stderr, made only when there is something to say; a closed one is no crash. */
function quietStderr(): NodeJS.WriteStream {
  if (!stderrQuiet) process.stderr.on("error", () => {})
  stderrQuiet = true
  return process.stderr
}
let stderrQuiet = false

/**
 * Runs this executor again inside the OS sandbox, on the same stdio through a relay that starts
 * stdio MCP servers beside the sandbox (mcp-relay.ts), and exits as it does.
 */
async function serveSandboxed(directory: string, policy: SandboxPolicy, search: boolean, scripts: number | undefined): Promise<number> {
  const [{ sandboxedArgv, sandboxFlags }, { releasePrivateTmps }, { cgroupAhead, inPidsCgroup }, { bwrapRaced, bwrapReason }, { selfCommand }] = await Promise.all([
    import("../executor/os-sandbox.ts"),
    import("../executor/landlock-tmp.ts"),
    import("../executor/process-bound.ts"),
    import("../executor/sandbox-backend.ts"),
    import("../executor/self.ts"),
  ])
  // Its cgroup's move starts waiting on the kernel now, while the relay gets ready.
  cgroupAhead()
  const flags = [...sandboxFlags(policy), ...(search ? [] : ["--no-search"]), ...(scripts === undefined ? [] : ["--max-scripts", String(scripts)])]
  const command = [...selfCommand(), "executor", "-C", directory, ...flags]
  // The relay uses Node's stdio: a pipe closed on it must not crash it (cli.ts leaves the
  // executor's stdio alone).
  process.stdout.on("error", () => {})
  quietStderr()
  const { relaySandboxed } = await import("../executor/mcp-relay.ts")
  // Landlock cannot keep the protected paths read-only: put back when the sandbox ends (this relay
  // does not follow the scripts; an agent's local executor puts them back after each one).
  // Under either Linux backend a git directory's hooks, config or commondir a script made is removed.
  const protect = policy.mode === "workspace-write" && (policy.backend === "landlock" || policy.backend === "bwrap") ? (await import("../executor/landlock-protect.ts")).ProtectedState.take(directory, policy.writable, { existing: policy.backend === "landlock" }) : undefined
  try {
    return await relaySandboxed(
      {
        plan: () => {
          const argv = sandboxedArgv(command, directory, policy, { search })
          const bound = inPidsCgroup(argv)
          return {
            argv: bound.argv,
            release: async () => {
              await bound.release()
              releasePrivateTmps(argv)
            },
          }
        },
        // A path planned for went away before bubblewrap mounted it (a host socket to cover).
        stale: (stderr) => policy.backend === "bwrap" && bwrapRaced(bwrapReason(stderr) ?? ""),
      },
      { workspace: directory, policy, env: process.env as Record<string, string> },
    )
  } finally {
    const changed = protect?.restore() ?? []
    if (changed.length > 0) quietStderr().write(`clanka executor: a script changed ${changed.join(", ")}, which stay read-only; put back as they were\n`)
    for (const line of protect?.finish() ?? []) quietStderr().write(`clanka executor: ${line}\n`)
  }
}
