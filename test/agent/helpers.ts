import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createAgent, type Agent, type AgentOptions } from "../../src/agent/agent.ts"
import type { AgentEvent, ContentPart } from "../../src/agent/events.ts"
import { LocalExecutor } from "../../src/executor/local.ts"
import { resolveModel } from "../../src/providers/resolve.ts"
import { startFakeModel, type FakeProvider, type FakeServer, type FakeTurn } from "../support/fake-model.ts"

export interface Rig {
  server: FakeServer
  executor: LocalExecutor
  directory: string
  agent: Agent
  run(prompt: string, signal?: AbortSignal): Promise<AgentEvent[]>
  close(): Promise<void>
}

/** A real agent on a real LocalExecutor in a temp directory, talking to a fake model server. */
export async function rig(
  provider: FakeProvider,
  turns: FakeTurn[],
  options: Partial<AgentOptions> & { agentsMd?: string; modelId?: string; subagentModelId?: string } = {},
): Promise<Rig> {
  const server = await startFakeModel(provider, turns)
  const directory = mkdtempSync(join(tmpdir(), "clanka-agent-"))
  if (options.agentsMd) writeFileSync(join(directory, "AGENTS.md"), options.agentsMd)
  const executor = new LocalExecutor({ directory })
  const model = resolveModel(`${provider}/${options.modelId ?? (provider === "anthropic" ? "claude-sonnet-4-5" : "gpt-5")}`, server.env)
  const subagentModel = options.subagentModelId ? resolveModel(`${provider}/${options.subagentModelId}`, server.env) : model
  const agent = createAgent({ executor, model, subagentModel, retry: { baseMs: 1, maxMs: 5 }, ...options })
  return {
    server,
    executor,
    directory,
    agent,
    async run(prompt, signal) {
      const events: AgentEvent[] = []
      for await (const event of agent.send(prompt, signal ? { signal } : {})) events.push(event)
      return events
    },
    async close() {
      await executor.close()
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}

/** One short line per event, for exact sequence assertions. */
export function brief(event: AgentEvent | ContentPart): string {
  switch (event._tag) {
    case "ReasoningDelta":
    case "ScriptDelta":
      return `${event._tag} ${JSON.stringify(event.delta)}`
    case "ScriptOutputDelta":
      return `ScriptOutputDelta ${JSON.stringify(event.text)}`
    case "ScriptOutput":
      return `ScriptOutput ${JSON.stringify(event.output)}`
    case "AgentFinished":
      return `AgentFinished ${JSON.stringify(event.summary)} turns=${event.turns}`
    case "AgentError":
      return `AgentError ${event.exitCode} ${event.message}`
    case "ErrorRetry":
      return `ErrorRetry ${event.error.status ?? "-"}`
    case "SubagentStart":
      return `SubagentStart ${event.id} ${JSON.stringify(event.prompt)}`
    case "SubagentPart":
      return `[${event.id}] ${brief(event.part)}`
    case "Hook":
      return `Hook ${event.name} ${event.exitCode}${event.blocked ? " blocked" : ""}`
    case "SubagentComplete":
      return `SubagentComplete ${event.id} ${JSON.stringify(event.summary)}`
    case "StructuredOutput":
      return `StructuredOutput ${JSON.stringify(event.value)}`
    default:
      return event._tag
  }
}
