/**
 * `clanka executor --sandbox MODE` asked for from outside (over ssh, from a shell): this process
 * stays outside the sandbox, a thin relay between its stdio and the sandboxed executor it starts.
 * It takes `mcpServers` out of the capabilities request, starts those stdio servers itself, each
 * in a sandbox of its own (beside.ts), and announces their tools as agent-side tools in the
 * request it forwards; the executor's calls of those tools (`AgentCall`s of the `mcp` service)
 * are answered here, everything else passes through unchanged. So a server's environment and
 * memory (its token) are never in the executor's sandbox, also on a remote host.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as v from "valibot"
import { CapabilitiesRequestSchema, type ExecuteOptions, ExecuteParamsSchema, type ImagePolicy, McpCallParamsSchema, type StdioMcpServer } from "../contract.ts"
import { ExitCode } from "../errors.ts"
import type { AgentSideMcp } from "../mcp/agent-side.ts"
import type { BesidePlace } from "../mcp/beside.ts"
import { LineWriter, readFrames } from "../protocol/framing.ts"
import { landlockStepEnv } from "./landlock-plan.ts"
import { BWRAP_STALE_ATTEMPTS } from "./sandbox-backend.ts"
import { ErrorCode, idKey, OutputNotificationParamsSchema } from "../protocol/messages.ts"
import { errorMessage } from "../util/error-message.ts"
import { fitAnswer } from "../protocol/agent-call-answer.ts"

/** As the agent's client reads: executor output lines can be large (readFile of a big file). */
const MAX_LINE_BYTES = 256 * 1024 * 1024

/** One start of the sandboxed executor: its command line and what to undo once it has ended. */
export interface SandboxLaunch {
  argv: string[]
  release(): Promise<void>
}

/** How the relay starts the sandbox, and starts it again when its plan went stale. */
export interface SandboxStarts {
  /** Plans the sandbox now (host sockets to cover, its pids cgroup): called again for each new start. */
  plan(): SandboxLaunch
  /** What the sandbox printed before it ever answered says its plan went stale (bwrapRaced): plan again. */
  stale(stderr: string): boolean
}

/** Runs the sandboxed executor on this process's stdio through the relay; resolves to its exit code. */
export function relaySandboxed(starts: SandboxStarts, place: BesidePlace): Promise<number> {
  const toAgent = new LineWriter(process.stdout)
  let child!: ChildProcess
  let toExecutor!: LineWriter
  /**
   * Until the executor first answers, the agent's lines are kept (and its stderr held back): a
   * start that failed in bubblewrap has read none of them, and a new start gets them all again.
   */
  let unanswered: string[] | undefined = []
  let held = ""
  let agentDone = false
  let starting: Promise<AgentSideMcp> | undefined
  let servers: AgentSideMcp | undefined
  /** Ids of this relay's own requests to the executor (agentCallResult): their answers stay here. */
  const own = new Set<string>()
  let nextId = 1
  /** The executes that take images (their request's `images` has a size): an MCP tool's images go to the agent. */
  const takesImages = new Map<string, ImagePolicy>()

  /** Notes an execute request's image policy, so the images of the MCP tools it calls here reach the agent. */
  const noteExecute = (line: string) => {
    const message = parseMessage(line)
    if (message?.method !== "execute" || (typeof message.id !== "string" && typeof message.id !== "number")) return
    const params = v.safeParse(ExecuteParamsSchema, message.params)
    if (!params.success || !params.output.images) return
    takesImages.set(idKey(message.id), params.output.images)
    // Ended executes are not tracked; the oldest of many is long over.
    if (takesImages.size > 256) takesImages.delete(takesImages.keys().next().value!)
  }

  /** Where an MCP tool's images go for the execute `id`: to the agent, as that execute's Image outputs. */
  const imagesFor = (id: string | number): ExecuteOptions["images"] => {
    const policy = takesImages.get(idKey(id))
    if (!policy) return undefined
    if ("refused" in policy && typeof policy.refused === "string") return { refused: policy.refused }
    const { maxBytes, maxSide } = policy as { maxBytes: number; maxSide?: number }
    return {
      maxBytes,
      ...(maxSide === undefined ? {} : { maxSide }),
      receive: (image) => toAgent.send({ jsonrpc: "2.0", method: "execute/output", params: { id, output: { _tag: "Image", image } } }),
    }
  }

  /** A capabilities request naming stdio servers: they start here, their tools go on as agent-side tools. */
  const rewrite = async (line: string): Promise<string> => {
    const message = parseMessage(line)
    if (message?.method !== "capabilities") return line
    const parsed = v.safeParse(CapabilitiesRequestSchema, message.params)
    // Not valid: the executor answers that, and starts nothing.
    if (!parsed.success || !parsed.output.mcpServers) return line
    const { mcpServers, ...rest } = parsed.output
    if (Object.keys(mcpServers).length > 0) starting ??= start(mcpServers as Record<string, StdioMcpServer>, place)
    const ours = starting ? await starting : undefined
    servers = ours
    const params = {
      ...(message.params as object),
      ...rest,
      mcpServers: undefined,
      agentMcpTools: [...(ours?.tools ?? []), ...(rest.agentMcpTools ?? [])],
      agentMcpFailures: [...(ours?.failures ?? []), ...(rest.agentMcpFailures ?? [])],
    }
    return JSON.stringify({ ...message, params })
  }

  /** An `mcp` AgentCall for one of this relay's servers: answered here, not forwarded. */
  const answered = (line: string): boolean => {
    if (!servers || !line.includes('"AgentCall"')) return false
    const message = parseMessage(line)
    if (message?.method !== "execute/output") return false
    const notification = v.safeParse(OutputNotificationParamsSchema, message.params)
    if (!notification.success || notification.output.output._tag !== "AgentCall") return false
    const { id, service, params } = notification.output.output
    const call = v.safeParse(McpCallParamsSchema, params)
    if (service !== "mcp" || !call.success || !servers.has(call.output.server)) return false
    const ask = servers.call(call.output.server, call.output.tool, call.output.arguments ?? {}, undefined, imagesFor(notification.output.id))
    void ask
      .then(
        (result) => ({ id, result }),
        (error) => ({ id, error: errorMessage(error) }),
      )
      .then((answer) => {
        const requestId = `relay-${nextId++}`
        own.add(requestId)
        toExecutor.send({ jsonrpc: "2.0", id: requestId, method: "agentCallResult", params: fitAnswer(answer) })
      })
    return true
  }

  /** The executor's answer to one of this relay's requests (an execute may have ended meanwhile: fine). */
  const ownAnswer = (line: string): boolean => {
    if (own.size === 0 || !line.includes('"relay-')) return false
    const message = parseMessage(line)
    if (typeof message?.id !== "string" || message.method !== undefined || !own.has(message.id)) return false
    own.delete(message.id)
    return true
  }

  const fromAgent = (async () => {
    try {
      for await (const frame of readFrames(process.stdin, MAX_LINE_BYTES)) {
        if ("tooLong" in frame) {
          toAgent.send({ jsonrpc: "2.0", id: null, error: { code: ErrorCode.invalidRequest, message: `invalid request: line longer than ${frame.limit} bytes; skipped to the next newline` } })
          continue
        }
        // In order: what follows a capabilities request waits until it is forwarded.
        const line = frame.line.includes('"capabilities"') ? await rewrite(frame.line) : frame.line
        if (line.includes('"images"')) noteExecute(line)
        unanswered?.push(line)
        await toExecutor.sendLine(line + "\n")
      }
    } catch {
      // the agent is gone: as its end of input
    }
    agentDone = true
    toExecutor.flush()
    child.stdin!.end()
  })()
  void fromAgent

  const answering = () => {
    if (unanswered === undefined) return
    unanswered = undefined
    process.stderr.write(held)
    held = ""
  }

  /** Starts the sandbox (again: with what the agent sent so far) and relays its output. */
  const launch = (attempt: number, done: (code: number) => void) => {
    const started = starts.plan()
    child = spawn(started.argv[0]!, started.argv.slice(1), { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...landlockStepEnv(started.argv) } })
    child.stdin!.on("error", () => {}) // EPIPE once it is gone; its exit says the rest
    toExecutor = new LineWriter(child.stdin!)
    for (const line of unanswered ?? []) void toExecutor.sendLine(line + "\n")
    if (agentDone) {
      toExecutor.flush()
      child.stdin!.end()
    }
    child.stderr!.on("data", (chunk: Buffer) => {
      if (unanswered === undefined) process.stderr.write(chunk)
      else held = (held + chunk.toString()).slice(-64 * 1024)
    })
    const fromExecutor = (async () => {
      try {
        for await (const frame of readFrames(child.stdout!, MAX_LINE_BYTES)) {
          answering()
          if ("tooLong" in frame) continue // cannot be: the agent's reader takes no more either
          if (answered(frame.line) || ownAnswer(frame.line)) continue
          await toAgent.sendLine(frame.line + "\n")
        }
      } catch {
        // the executor is gone: its exit says how
      }
    })()
    let over = false
    const ended = async (code: number) => {
      if (over) return
      over = true
      await fromExecutor
      await started.release()
      if (unanswered !== undefined && attempt < BWRAP_STALE_ATTEMPTS && starts.stale(held)) {
        held = ""
        return launch(attempt + 1, done)
      }
      answering()
      toAgent.flush()
      done(code)
    }
    child.once("error", (error) => {
      held += `clanka: cannot start the sandbox: ${error.message}\n`
      void ended(ExitCode.executorLost)
    })
    child.once("exit", (code) => void ended(code ?? ExitCode.executorLost))
  }

  for (const signal of ["SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal))
  return new Promise((resolve) => {
    launch(1, async (code) => {
      process.stdin.destroy()
      await (servers ?? (await starting?.catch(() => undefined)))?.close()
      // Whatever is left (a server's stream) must not keep this process alive.
      setTimeout(() => process.exit(code), 1000).unref()
      resolve(code)
    })
  })
}

/** A line as a JSON-RPC message's fields, or undefined when it is not a JSON object (passed on as it is). */
function parseMessage(line: string): { id?: unknown; method?: unknown; params?: unknown } | undefined {
  try {
    const message = JSON.parse(line)
    return message && typeof message === "object" ? message : undefined
  } catch {
    return undefined
  }
}

async function start(servers: Record<string, StdioMcpServer>, place: BesidePlace): Promise<AgentSideMcp> {
  const { startServersBeside } = await import("../mcp/beside.ts")
  return startServersBeside(servers, place)
}
