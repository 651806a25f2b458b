import type { ArgsDef } from "citty"
import type { Executor } from "../contract.ts"
import { checkEnvName } from "../executor/executor-env.ts"
import { UsageError } from "../errors.ts"
import { repeated } from "./argv.ts"
import { sandboxArgs, sandboxRequest } from "./sandbox-flags.ts"

/** Flags that choose where scripts run; shared by run, exec and tool. */
export const executorArgs = {
  directory: { type: "string", alias: "C", description: "working directory (default: cwd)", valueHint: "DIR" },
  executor: { type: "string", description: "spawn CMD and speak the executor protocol on its stdio", valueHint: "CMD" },
  ssh: { type: "string", description: "run on [USER@]HOST[:DIR] through the system ssh", valueHint: "HOST" },
  "remote-bin": { type: "string", description: "path of clanka on the remote host (default $CLANKA_REMOTE_BIN or clanka)", valueHint: "PATH" },
  upload: {
    type: "boolean",
    default: true,
    description: "copy this clanka to an --ssh host that lacks it (into ~/.cache/clanka/bin there)",
    negativeDescription: "never copy clanka to the host: a host without it is exit 3",
  },
  ...(sandboxArgs as unknown as ArgsDef),
  env: { type: "string", description: "pass this environment variable to the executor (repeatable)", valueHint: "NAME", repeatable: true },
} as const

export interface ExecutorFlags {
  directory?: string
  executor?: string
  ssh?: string
  "remote-bin"?: string
  upload?: boolean
  sandbox?: string
  network?: boolean
  writable?: string
  env?: string
}

/** The executor the flags ask for; a local one is a child process in the OS sandbox. */
export async function openExecutor(args: ExecutorFlags): Promise<Executor> {
  const env = repeated(args.env)
  for (const name of env) {
    const problem = checkEnvName(name)
    if (problem) throw new UsageError(problem)
  }
  const { connectExecutor } = await import("../executor/connect.ts")
  return connectExecutor({
    directory: args.directory,
    executor: args.executor,
    ssh: args.ssh,
    remoteBin: args["remote-bin"],
    upload: args.upload !== false,
    local: "child",
    ...(args.sandbox === undefined ? {} : { sandbox: sandboxRequest(args.sandbox, "auto") }),
    network: args.network ?? false,
    writable: repeated(args.writable),
    env,
    onWarning: (line) => process.stderr.write(`clanka: ${line}\n`),
  })
}
