/**
 * A run over several hosts (`clanka run --ssh web=… --ssh db=…`): the first host's executor is the
 * agent's own; the others are reached by `delegate(task, { host })`, a sub-agent whose scripts run
 * there. Scripts see the list through `hosts()`, an agent-side service.
 */
import type { Capabilities, Executor } from "../contract.ts"
import { ToolError } from "../errors.ts"
import { controlTools } from "../tools/control.ts"
import { renderToolDeclaration } from "../tools/dts.ts"
import { buildSystemPrompt, toolNamesFromDts } from "./system-prompt.ts"
import type { UserContext } from "./user-context.ts"

/** One host of the run, as the caller hands it to the agent. */
export interface AgentHost {
  name: string
  executor: Executor
}

/** A host as the loop uses it: its executor and what a sub-agent there is told. */
export interface HostEntry {
  name: string
  executor: Executor
  directory: string
  toolNames: readonly string[]
  subagentSystem: string
}

/** Reads each host's capabilities (the first one's are given) and builds its sub-agents' prompt. */
export async function prepareHosts(hosts: readonly AgentHost[], first: Capabilities, extra: string | undefined, user?: UserContext): Promise<HostEntry[]> {
  const capabilities = await Promise.all(hosts.map((host, index) => (index === 0 ? first : host.executor.capabilities())))
  return hosts.map((host, index) => {
    const caps = capabilities[index]!
    return {
      name: host.name,
      executor: host.executor,
      directory: caps.directory,
      toolNames: toolNamesFromDts(caps.toolsDts),
      subagentSystem: buildSystemPrompt({
        ...caps,
        user,
        subagent: true,
        hosts: `You run on the host "${host.name}" of a run over several hosts.`,
        ...(extra === undefined ? {} : { extra }),
      }),
    }
  })
}

/** The system prompt's section for the agent on the first host: the hosts, hosts() and delegate's host. */
export function hostsSection(hosts: readonly HostEntry[]): string {
  const declare = (name: string) => renderToolDeclaration(controlTools.find((tool) => tool.name === name)!, { allArgs: true })
  return [
    `Hosts: this run spans several machines. Your scripts run on "${hosts[0]!.name}"; to work on another one, delegate a self-contained task to a sub-agent whose scripts run there: delegate(task, { host: "NAME" }) (run several at once with Promise.all).`,
    ...hosts.map((host, index) => `- ${host.name}: ${host.directory}${index === 0 ? " (your scripts run here)" : ""}`),
    declare("hosts"),
    declare("delegate"),
  ].join("\n")
}

/** hosts() for a script running on `current`. */
export function listHosts(hosts: readonly HostEntry[] | undefined, current: string | undefined): { name: string; directory: string; current: boolean }[] {
  if (!hosts) throw new ToolError("hosts: this run has one host; give clanka run several --ssh to have more")
  return hosts.map((host) => ({ name: host.name, directory: host.directory, current: host.name === current }))
}

/** The host `delegate(task, { host })` names; a clear error for one that is not in the run. */
export function findHost(hosts: readonly HostEntry[] | undefined, name: string): HostEntry {
  if (!hosts) throw new ToolError(`no host "${name}": this run has one host; give clanka run several --ssh (--ssh NAME=HOST:DIR) to delegate to another`)
  const host = hosts.find((entry) => entry.name === name)
  if (!host) throw new ToolError(`no host "${name}" in this run; its hosts are ${hosts.map((entry) => entry.name).join(", ")}`)
  return host
}
