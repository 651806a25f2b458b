/**
 * `clanka mcp`: clanka as an MCP server on stdio. It serves one tool, `execute`, whose description
 * holds the sandbox's declarations, backed by the same executor as `clanka exec` (so -C, --ssh,
 * --executor and the sandbox flags apply, and configured MCP servers are there too): any MCP
 * client gains code mode and clanka's tools.
 */
import { defineCommand } from "./define-command.ts"
import { mcp as spec } from "./commands.ts"
import { CancelledError, EXECUTE_TOOL, EXECUTE_TOOL_NAME, type Executor, noSubagents, ScriptError, scriptOf } from "../contract.ts"
import { ExecutorLostError, ExitCode } from "../errors.ts"
import { OutputCap } from "../util/output-cap.ts"
import { errorMessage } from "../util/error-message.ts"
import { VERSION } from "../version.ts"
import { openExecutor } from "./executor-flags.ts"

export default defineCommand({
  ...spec,
  async run({ args }) {
    let executor = await openExecutor(args)
    // A script can end its executor (kill its parent process). `clanka run` stops then; a server
    // lives on, so the next call gets a new executor instead of the same failure every time.
    let replacing: Promise<Executor> | undefined
    const replace = (dead: Executor) => {
      if (dead !== executor || replacing) return
      replacing = (async () => {
        await dead.close().catch(() => {})
        executor = await openExecutor(args)
        return executor
      })().finally(() => (replacing = undefined))
      replacing.catch(() => {})
    }
    const [{ Server }, { LineTransport }, types] = await Promise.all([
      import("@modelcontextprotocol/sdk/server/index.js"),
      import("../mcp/line-transport.ts"),
      import("@modelcontextprotocol/sdk/types.js"),
    ])
    const caps = await executor.capabilities()
    const server = new Server({ name: "clanka", version: VERSION }, { capabilities: { tools: {} } })
    server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
      tools: [{ name: EXECUTE_TOOL_NAME, description: describeExecute(caps.toolsDts, caps.directory), inputSchema: EXECUTE_TOOL.inputSchema as { type: "object" } }],
    }))
    server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
      if (request.params.name !== EXECUTE_TOOL_NAME) {
        return { content: [{ type: "text" as const, text: `unknown tool "${request.params.name}": this server has only ${EXECUTE_TOOL_NAME}` }], isError: true }
      }
      const script = scriptOf(request.params.arguments ?? {})
      if (script === undefined) return { content: [{ type: "text" as const, text: 'execute takes {"script": "<JavaScript>"}' }], isError: true }
      let running: Executor
      try {
        running = await (replacing ?? executor)
      } catch (error) {
        return { content: [{ type: "text" as const, text: `[the executor could not start again: ${errorMessage(error)}]` }], isError: true }
      }
      const { text, failed, lost } = await runScript(running, script, extra.signal)
      if (lost) replace(running)
      return { content: [{ type: "text" as const, text: lost ? `${text}[a new executor starts for the next call]\n` : text }], ...(failed ? { isError: true } : {}) }
    })
    const closed = new Promise<void>((resolve) => {
      server.onclose = () => resolve()
      // The client went away (stdin closed): stop serving, and what the scripts started dies.
      process.stdin.once("end", () => resolve())
    })
    await server.connect(new LineTransport(process.stdin, process.stdout))
    await closed
    await server.close().catch(() => {})
    await replacing?.catch(() => {})
    await executor.close()
    return ExitCode.ok
  },
})

/**
 * The execute tool's description for an MCP client: self-contained (the client has no clanka
 * system prompt), and without delegate(), which needs a model this server does not have.
 */
function describeExecute(toolsDts: string, directory: string): string {
  return [
    "Run a JavaScript program in clanka's sandbox. The functions declared below are async globals; what the program prints with console.log is returned to you.",
    `The program is the body of an async function (top-level await works; variables do not persist between calls; no require, import or process). Paths are relative to ${directory}. Print what you need with console.log.`,
    "Sandbox functions:",
    withoutDeclaration(toolsDts, "delegate").trim(),
  ].join("\n\n")
}

/** The declarations less `declare function NAME(…)` and the doc comment just above it. */
function withoutDeclaration(dts: string, name: string): string {
  const lines = dts.split("\n")
  const at = lines.findIndex((line) => line.startsWith(`declare function ${name}(`))
  if (at === -1) return dts
  let start = at
  if (lines[start - 1]?.trimEnd().endsWith("*/")) {
    start--
    while (start > 0 && !lines[start]!.trimStart().startsWith("/**")) start--
  }
  return [...lines.slice(0, start), ...lines.slice(at + 1)].join("\n")
}

/** Runs one script; its output as the model would see it (capped at 64 KiB), and whether it failed. */
async function runScript(executor: Executor, script: string, signal: AbortSignal): Promise<{ text: string; failed: boolean; lost: boolean }> {
  const output = new OutputCap()
  let failed = false
  let lost = false
  try {
    for await (const text of executor.execute({
      script,
      signal,
      onTaskComplete: (summary) => output.push(`[taskComplete: ${summary}]\n`),
      onSubagent: noSubagents,
    })) {
      output.push(text)
    }
  } catch (error) {
    failed = true
    if (error instanceof ScriptError) output.push(`The script failed: ${error.message}\n`)
    else if (error instanceof CancelledError) output.push("[cancelled]\n")
    else output.push(`[stopped: ${errorMessage(error)}]\n`)
    lost = error instanceof ExecutorLostError
  }
  const text = output.toString()
  return { text: text === "" ? "(no output)" : text, failed, lost }
}
