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
  ...(sandboxArgs as unknown as ArgsDef),
  env: { type: "string", description: "pass this environment variable to the executor (repeatable)", valueHint: "NAME", repeatable: true },
  search: { type: "boolean", default: true, description: "offer the search(query) tool", negativeDescription: "no search(query) tool and no index" },
  "embed-model": { type: "string", description: "search also ranks by embeddings from openai/MODEL or openai-compatible/MODEL (keys stay here)", valueHint: "PROVIDER/MODEL" },
} as const

export interface ExecutorFlags {
  directory?: string
  executor?: string
  ssh?: string
  "remote-bin"?: string
  sandbox?: string
  network?: boolean
  writable?: string
  env?: string
  search?: boolean
  "embed-model"?: string
}

/** The executor the flags ask for; a local one is a child process in the OS sandbox. */
export async function openExecutor(args: ExecutorFlags, options: { searchLikely?: boolean } = {}): Promise<Executor> {
  const env = repeated(args.env)
  for (const name of env) {
    const problem = checkEnvName(name)
    if (problem) throw new UsageError(problem)
  }
  if (args["embed-model"] !== undefined && args.search === false) throw new UsageError("--embed-model is for search, which --no-search turns off; pass only one of them")
  if (args["embed-model"] !== undefined) {
    // Checked before the executor starts; the executor asks this process for vectors.
    const { configureEmbeddings, parseEmbedModel } = await import("../tools/semantic/embed.ts")
    configureEmbeddings(parseEmbedModel(args["embed-model"]))
  }
  const { connectExecutor } = await import("../executor/connect.ts")
  return connectExecutor({
    directory: args.directory,
    executor: args.executor,
    ssh: args.ssh,
    remoteBin: args["remote-bin"],
    local: "child",
    ...(args.sandbox === undefined ? {} : { sandbox: sandboxRequest(args.sandbox, "auto") }),
    network: args.network ?? false,
    writable: repeated(args.writable),
    env,
    search: args.search !== false,
    searchLikely: options.searchLikely ?? false,
    onWarning: (line) => process.stderr.write(`clanka: ${line}\n`),
  })
}
