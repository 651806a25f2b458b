import type { ArgsDef } from "citty"
import type { Executor } from "../contract.ts"
import { type ConnectOptions, parseSshTarget } from "../executor/connect.ts"
import { checkEnvName } from "../executor/executor-env.ts"
import { UsageError } from "../errors.ts"
import { repeated } from "./argv.ts"
import { sandboxArgs, sandboxRequest } from "./sandbox-flags.ts"

/** Flags that choose where scripts run; shared by run, exec and tool. */
export const executorArgs = {
  directory: { type: "string", alias: "C", description: "working directory (default: cwd)", valueHint: "DIR" },
  executor: { type: "string", description: "spawn CMD and speak the executor protocol on its stdio", valueHint: "CMD" },
  ssh: {
    type: "string",
    description: "run on [NAME=][USER@]HOST[:DIR] through the system ssh; repeatable (exec: on every host; run: on the first, delegate() to the others)",
    valueHint: "HOST",
    repeatable: true,
  },
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
  const hosts = sshHosts(args)
  if (hosts.length > 1) throw new UsageError("several --ssh hosts work with clanka run and clanka exec; give this command one")
  return openOne(args, hosts[0]?.target)
}

/** One host of `--ssh [NAME=]TARGET` given several times. */
export interface SshHost {
  name: string
  /** `[USER@]HOST[:DIR]` */
  target: string
}

/** The --ssh hosts, named (`web=deploy@web1:/srv/app`) or by their host (`web1`); names are unique. */
export function sshHosts(args: Pick<ExecutorFlags, "ssh" | "executor" | "env">): SshHost[] {
  const hosts = repeated(args.ssh).map((spec) => {
    const named = spec.match(/^([A-Za-z0-9_][\w.-]*)=(.*)$/)
    const target = named ? named[2]! : spec
    return { name: named ? named[1]! : parseSshTarget(target).host.replace(/^.*@/, ""), target }
  })
  // Said once here rather than once per host when they connect.
  if (hosts.length > 1 && args.executor !== undefined) throw new UsageError("--executor and --ssh both choose the executor; pass only one of them")
  if (hosts.length > 1 && args.env !== undefined) {
    throw new UsageError("--env applies to a local executor; on a remote host the executor has the host's environment")
  }
  for (const [index, host] of hosts.entries()) {
    if (hosts.findIndex((other) => other.name === host.name) !== index) {
      throw new UsageError(`two --ssh hosts are named "${host.name}"; name them apart: --ssh NAME=${host.target}`)
    }
  }
  return hosts
}

/** Every --ssh host connected at once; when one cannot be, the others are closed again. */
export async function openHosts(args: ExecutorFlags, hosts: SshHost[]): Promise<(SshHost & { executor: Executor })[]> {
  // Several uploads at once: one line each, not percentages that overwrite each other.
  const progress = { write: (text: string) => process.stderr.write(text), isTTY: false }
  const opened = await Promise.allSettled(hosts.map((host) => openOne(args, host.target || undefined, progress)))
  const failed = opened.find((result) => result.status === "rejected")
  if (failed) {
    await Promise.all(opened.map((result) => (result.status === "fulfilled" ? result.value.close() : undefined)))
    throw failed.reason
  }
  return hosts.map((host, index) => ({ ...host, executor: (opened[index] as PromiseFulfilledResult<Executor>).value }))
}

async function openOne(args: ExecutorFlags, ssh: string | undefined, progress?: ConnectOptions["progress"]): Promise<Executor> {
  const env = repeated(args.env)
  for (const name of env) {
    const problem = checkEnvName(name)
    if (problem) throw new UsageError(problem)
  }
  const { connectExecutor } = await import("../executor/connect.ts")
  return connectExecutor({
    directory: args.directory,
    executor: args.executor,
    ssh,
    ...(progress ? { progress } : {}),
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
