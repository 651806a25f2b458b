/**
 * `clanka acp`: an Agent Client Protocol agent on stdin/stdout, built on the official SDK's agent
 * side (loaded only by this command). Each ACP session is a clanka session (session.ts); the
 * client's fs and terminal capabilities are not used: the executor keeps the files and runs the
 * commands, in its sandbox, wherever the flags put it. A request that fails is answered with a
 * JSON-RPC error whose message is clanka's one line, and the agent keeps serving.
 */
import type { AgentCapabilities, AgentConnection, SessionUpdate } from "@agentclientprotocol/sdk"
import { loadUserContext } from "../agent/user-context.ts"
import { ClankaError, ExitCode } from "../errors.ts"
import { sessionsDisabled } from "../session/store.ts"
import { errorMessage } from "../util/error-message.ts"
import { VERSION } from "../version.ts"
import { catchInterrupts } from "../cli/interrupt.ts"
import { McpServersError } from "./mcp.ts"
import { PromptError } from "./prompt.ts"
import { AcpSession, type AcpFlags, type SessionRequest } from "./session.ts"

export interface AcpIo {
  input: ReadableStream<Uint8Array>
  output: WritableStream<Uint8Array>
}

/** stdout as a stream of bytes; a write waits until stdout took it. */
function stdoutStream(): WritableStream<Uint8Array> {
  return new WritableStream({
    write: (chunk) => new Promise<void>((resolve, reject) => process.stdout.write(chunk, (error) => (error ? reject(error) : resolve()))),
  })
}

/** Serves until the client closes stdin (exit 0) or a signal stops it (exit 130). */
export async function serveAcp(flags: AcpFlags, io: AcpIo = { input: Bun.stdin.stream(), output: stdoutStream() }): Promise<number> {
  const acp = await import("@agentclientprotocol/sdk")
  const sessions = new Map<string, AcpSession>()
  // The user's AGENTS.md and skills, read once for every session.
  const user = loadUserContext()
  const saving = flags.session !== false && !sessionsDisabled()

  /** One line for the client: the SDK's own errors as they are, clanka's with its message. */
  const refuse = (error: unknown): Error => {
    if (error instanceof acp.RequestError) return error
    if (error instanceof PromptError || error instanceof McpServersError) return acp.RequestError.invalidParams(undefined, error.message)
    const message = errorMessage(error).split("\n")[0]!
    if (process.env.CLANKA_DEBUG === "1" && error instanceof Error && error.stack) process.stderr.write(error.stack + "\n")
    return new acp.RequestError(-32603, message, { exitCode: error instanceof ClankaError ? error.exitCode : ExitCode.failed })
  }
  const guarded =
    <P, R>(handler: (params: P, signal: AbortSignal) => Promise<R>) =>
    async ({ params, signal }: { params: P; signal: AbortSignal }): Promise<R> => {
      try {
        return await handler(params, signal)
      } catch (error) {
        throw refuse(error)
      }
    }
  const session = (id: string): AcpSession => {
    const found = sessions.get(id)
    if (!found) throw acp.RequestError.sessionNotFound(id)
    return found
  }
  const checkCwd = (cwd: string) => {
    if (!cwd.startsWith("/")) throw acp.RequestError.invalidParams(undefined, `cwd must be an absolute path, got "${cwd}"`)
  }

  let connection: AgentConnection | undefined
  let loading: Promise<unknown> = Promise.resolve()
  const notify = (sessionId: string) => (update: SessionUpdate): Promise<void> => connection!.client.notify(acp.methods.client.session.update, { sessionId, update })
  // Sessions still starting when the connection ends: waited for, then closed with the others (an
  // executor left open would keep clanka running after the editor has gone).
  const opening = new Set<Promise<unknown>>()
  let ended = false
  const open = (request: SessionRequest): Promise<AcpSession> => {
    checkCwd(request.cwd)
    const pending = AcpSession.open(flags, request, user).then(async (opened) => {
      if (!ended) return (sessions.set(opened.id, opened), opened)
      await opened.close()
      throw new Error("the editor closed the connection")
    })
    const settled = pending.catch(() => {})
    opening.add(settled)
    void settled.then(() => opening.delete(settled))
    return pending
  }

  const app = acp
    .agent({ name: "clanka" })
    .onRequest(
      acp.methods.agent.initialize,
      guarded(async () => ({
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: await capabilities(flags, saving),
        agentInfo: { name: "clanka", title: "clanka", version: VERSION },
        authMethods: [],
      })),
    )
    .onRequest(
      acp.methods.agent.session.new,
      guarded(async (params) => ({ sessionId: (await open({ cwd: params.cwd, mcpServers: params.mcpServers })).id })),
    )
    .onRequest(
      acp.methods.agent.session.load,
      guarded(async (params) => {
        if (!saving) throw acp.RequestError.invalidRequest(undefined, "sessions are not saved here (--no-session or CLANKA_NO_SESSION), so none can be loaded")
        // One load at a time: a load sees the sessions an earlier one opened (by then marked in
        // use in their transcripts), so two loads of one session cannot both write it.
        const turn = loading.then(async () => {
          if (sessions.has(params.sessionId)) throw acp.RequestError.invalidRequest(undefined, `session ${params.sessionId} is open on this connection already`)
          return await open({ cwd: params.cwd, mcpServers: params.mcpServers, load: params.sessionId })
        })
        loading = turn.catch(() => {})
        const loaded = await turn
        // The client asked for this id: a unique prefix found it, the full id names it from now on.
        if (loaded.id !== params.sessionId) {
          sessions.delete(loaded.id)
          sessions.set(params.sessionId, loaded)
        }
        await loaded.replay(notify(params.sessionId))
        return {}
      }),
    )
    .onRequest(
      acp.methods.agent.session.prompt,
      guarded(async (params, signal) => ({ stopReason: await session(params.sessionId).prompt(params.prompt, notify(params.sessionId), signal) })),
    )
    .onRequest(
      acp.methods.agent.session.close,
      guarded(async (params) => {
        const closing = session(params.sessionId)
        sessions.delete(params.sessionId)
        await closing.close()
        return {}
      }),
    )
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel()
    })

  const interrupt = catchInterrupts()
  connection = app.connect(acp.ndJsonStream(io.output, io.input))
  try {
    await Promise.race([connection.closed, interrupt.received])
  } finally {
    // Every session's scripts, and the processes they started, end with the connection.
    ended = true
    await Promise.allSettled([...opening])
    await Promise.allSettled([...sessions.values()].map((each) => each.close()))
    connection.close()
    interrupt.dispose()
  }
  return interrupt.signal.aborted ? ExitCode.interrupted : ExitCode.ok
}

/** What this agent offers; images when the model chosen for new sessions takes them. */
async function capabilities(flags: AcpFlags, saving: boolean): Promise<AgentCapabilities> {
  let image = false
  try {
    const { resolveModel } = await import("../providers/resolve.ts")
    const { defaultModel } = await import("../cli/model-choice.ts")
    const { projectConfig } = await import("../cli/executor-flags.ts")
    const spec = flags.model || process.env.CLANKA_MODEL || projectConfig(flags).config.model || defaultModel(process.env)
    image = spec !== undefined && resolveModel(spec).imageInput !== undefined
  } catch {
    // No usable model yet: session/new says why.
  }
  return {
    loadSession: saving,
    promptCapabilities: { image, audio: false, embeddedContext: true },
    mcpCapabilities: { http: true, sse: false },
    sessionCapabilities: { close: {} },
  }
}
