import type { ArgsDef } from "citty"
import type { Executor } from "../contract.ts"

/** Flags that choose where scripts run; shared by run, exec and tool. */
export const executorArgs = {
  directory: { type: "string", alias: "C", description: "working directory (default: cwd)", valueHint: "DIR" },
  executor: { type: "string", description: "spawn CMD and speak the executor protocol on its stdio", valueHint: "CMD" },
  ssh: { type: "string", description: "run on [USER@]HOST[:DIR] through the system ssh", valueHint: "HOST" },
  "remote-bin": { type: "string", description: "path of clanka on the remote host (default $CLANKA_REMOTE_BIN or clanka)", valueHint: "PATH" },
} as const satisfies ArgsDef

export async function openExecutor(args: {
  directory?: string
  executor?: string
  ssh?: string
  "remote-bin"?: string
}): Promise<Executor> {
  const { connectExecutor } = await import("../executor/connect.ts")
  return connectExecutor({
    directory: args.directory,
    executor: args.executor,
    ssh: args.ssh,
    remoteBin: args["remote-bin"],
  })
}
