/**
 * Services that need the agent's keys or network, run on the agent's side: an executor asks for
 * them through its ExecuteOptions.onAgentCall (over the protocol, an `AgentCall` output answered
 * with `agentCallResult`), so a key such as EXA_API_KEY never enters the executor. The same path
 * will serve embeddings and remote MCP servers.
 */
import * as v from "valibot"
import type { ExecuteOptions } from "../contract.ts"
import { ToolError } from "../errors.ts"
import { exaSearch } from "./web/exa.ts"

export const WebSearchParamsSchema = v.object({
  query: v.pipe(v.string(), v.minLength(1)),
  numResults: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(25))),
  maxCharacters: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100))),
})

export const EmbedParamsSchema = v.object({ texts: v.array(v.string()) })

/** A service; `images`: where images it comes upon go (an MCP tool's: to the agent's model). */
type Service = (params: unknown, signal: AbortSignal, images?: ExecuteOptions["images"]) => Promise<unknown>

const services: Record<string, Service> = {
  webSearch: (params, signal) => exaSearch(v.parse(WebSearchParamsSchema, params), process.env, signal),
  // Vectors for the executor's search index, with the model chosen by --embed-model (embed.ts).
  // A script's skill(name) about the user's skills (skills/user.ts), outside a run (exec, tool).
  skill: async (params) => (await import("../skills/user.ts")).answerUserSkill((await import("../config/load.ts")).userConfigDir(), params),
  embed: async (params, signal) => (await import("./semantic/embed.ts")).embed(v.parse(EmbedParamsSchema, params).texts, signal),
}

/** Adds a service this process answers (the `mcp` service once HTTP MCP servers are connected). */
export function registerAgentService(name: string, run: Service): void {
  services[name] = run
}

/** What a service only an agent of `clanka run` answers says where there is none (exec, tool). */
const RUN_ONLY: Record<string, string> = {
  hosts: "it lists the hosts of a `clanka run` with several --ssh hosts; there are none here",
}

/** Runs an agent-side service in this process, with this process's keys. */
export async function runAgentService(
  service: string,
  params: unknown,
  signal: AbortSignal = new AbortController().signal,
  images?: ExecuteOptions["images"],
): Promise<unknown> {
  const run = services[service]
  if (!run) throw new ToolError(RUN_ONLY[service] ?? `no agent-side service "${service}"`)
  return run(params, signal, images)
}
