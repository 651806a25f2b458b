import { UNRESTRICTED } from "../../src/contract.ts"
import { runAgentService } from "../../src/tools/agent-services.ts"
import { ProcessRegistry } from "../../src/tools/processes.ts"
import { TodoStore } from "../../src/tools/todos.ts"
import type { ToolContext } from "../../src/tools/tool.ts"

/** What a tool sees when a test calls it without an executor: no sandbox rule, no sub-agents. */
export function toolContext(directory: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    directory,
    policy: UNRESTRICTED,
    signal: new AbortController().signal,
    onTaskComplete: () => {},
    onSubagent: async () => "",
    agentCall: runAgentService,
    todos: new TodoStore(),
    processes: new ProcessRegistry(),
    ...overrides,
  }
}
