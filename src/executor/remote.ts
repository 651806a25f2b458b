/**
 * An Executor on the far side of a command's stdio (`--executor CMD`, `--ssh HOST`): spawns the
 * command, checks the protocol version, and speaks the protocol. Whatever goes wrong with the
 * link ends every pending call with an ExecutorLostError that says what to do.
 */
import type { Subprocess } from "bun"
import * as v from "valibot"
import { ClankaError } from "../errors.ts"
import { fileSink } from "../protocol/bun-stdio.ts"
import { type SpawnedExecutor, spawnExecutor } from "./executor-process.ts"
import { ProtocolClient, RpcResponseError } from "../protocol/client.ts"
import { ErrorCode, ExecuteResultSchema, type Output } from "../protocol/messages.ts"
import { PROTOCOL_VERSION, VERSION } from "../version.ts"
import {
  type AgentCall,
  CancelledError,
  CapabilitiesSchema,
  DEFAULT_SCRIPT_TIMEOUT_MS,
  ExecutorLostError,
  InvalidParamsError,
  ScriptError,
  ToolError,
  UnknownToolError,
  type Capabilities,
  type CapabilitiesRequest,
  type ExecuteOptions,
  type Executor,
  type ImagePolicy,
} from "../contract.ts"
import { seconds } from "../util/duration.ts"
import { fitAnswer } from "../protocol/agent-call-answer.ts"
import { settlesWithin } from "../util/settles-within.ts"
import { errorMessage } from "../util/error-message.ts"
import { visible } from "../output/visible.ts"
import { clampCapabilities } from "./remote-capabilities.ts"
import { keepReport } from "./report-cap.ts"

/**
 * The process to speak to: argv to spawn (without a shell, in `env`, default this process's), or
 * one spawned already (executor-process.ts) by a caller that started it before loading this
 * module, with its admission into a pids cgroup, which must finish before the handshake counts.
 */
export type RemoteExecutorOptions = RemoteExecutorSettings & ({ argv: string[]; env?: Record<string, string | undefined> } | { spawned: SpawnedExecutor })

interface RemoteExecutorSettings {
  /** How messages name the other side: a host for ssh, the command line otherwise. */
  label: string
  /** Set when argv runs the system ssh: failures are worded for ssh. */
  ssh?: { host: string; remoteBin: string }
  /** The agent's own executor on this machine (in its sandbox): messages say "the local executor". */
  local?: boolean
  /** How long past a script's time limit to wait for its result (default 15 s). */
  answerGraceMs?: number
  /** Sent with every capabilities request: the MCP servers the far side starts (at the handshake). */
  capabilitiesRequest?: CapabilitiesRequest
  /** Liveness pings while a call waits (default: from CLANKA_PING_MS, see `pingTiming`). */
  ping?: { intervalMs: number; timeoutMs: number }
  /** Told as soon as the process exists, before it has answered. */
  onSpawn?(): void
}

/** Queued console text above which reading from the executor waits for the consumer. */
const HIGH_WATER_CHARS = 16 * 1024 * 1024
const STDERR_LINES = 20
/**
 * The far side stops a script at its time limit and answers; a result this much later means it
 * stopped answering (hung, or a link that drops packets without closing).
 */
const ANSWER_GRACE_MS = 15_000
/** A ping after 5 s of silence while a call waits; six unanswered (30 s) and the executor is gone. */
const PING_INTERVAL_MS = 5_000
const PINGS_BEFORE_LOST = 6

/** Below this a healthy executor busy for a moment would be taken for a frozen one. */
const MIN_PING_INTERVAL_MS = 50

/** The ping timing: CLANKA_PING_MS sets the interval (tests, slow links); the timeout is six of them. */
export function pingTiming(env: Record<string, string | undefined> = process.env): { intervalMs: number; timeoutMs: number } {
  const given = Number(env.CLANKA_PING_MS)
  const intervalMs = env.CLANKA_PING_MS && Number.isFinite(given) && given > 0 ? Math.max(MIN_PING_INTERVAL_MS, given) : PING_INTERVAL_MS
  return { intervalMs, timeoutMs: intervalMs * PINGS_BEFORE_LOST }
}

/** ssh ran, but the host has no clanka where it was looked for (the remote command's exit 127). */
export class RemoteClankaMissingError extends ExecutorLostError {}

export class RemoteExecutor implements Executor {
  private readonly client: ProtocolClient
  private readonly stderrLines: string[] = []
  private readonly exited: Promise<{ code: number | null; signal: string | null }>
  /** Settles once the child's stderr has ended and its last lines are kept. */
  private readonly stderrRead: Promise<void>
  private handshake: Capabilities | undefined
  /** The capabilities the executor announced when it started (its sandbox, its directory). */
  announced: Capabilities | undefined
  private connected = false
  private closing = false
  /** It stopped answering pings: closing it need not wait for it to wind down by itself. */
  private silent = false

  /** The child's stdin, written through Bun's own sink (no Node stream to build at the start). */
  private readonly input: ReturnType<typeof fileSink>

  private constructor(
    private readonly options: RemoteExecutorOptions,
    private readonly child: Subprocess<"pipe", "pipe", "pipe">,
  ) {
    this.exited = child.exited.then(() => ({ code: child.signalCode ? null : child.exitCode, signal: child.signalCode ? String(child.signalCode) : null }))
    // A write to a pipe whose reader is gone fails quietly; the reader reports the loss.
    this.input = fileSink(child.stdin)
    this.stderrRead = this.readStderr(child.stderr)
    this.client = new ProtocolClient(child.stdout, this.input, (reason) => this.lostError(reason))
  }

  /** Keeps the last lines of the child's stderr, for the one line that says why it ended. */
  private async readStderr(stderr: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder()
    let partial = ""
    try {
      for await (const chunk of stderr) {
        const text = decoder.decode(chunk, { stream: true })
        if (process.env.CLANKA_DEBUG === "1") process.stderr.write(text)
        const lines = (partial + text).split("\n")
        partial = lines.pop()!.slice(-4096)
        for (const line of lines) if (line.trim() !== "") this.stderrLines.push(line.trim().slice(0, 500))
        // The search index's progress is meant for the user (CLANKA_DEBUG already showed it); the
        // far side may be hostile, so no escape sequence of its own reaches the terminal.
        if (process.env.CLANKA_DEBUG !== "1") for (const line of lines) if (line.startsWith("clanka search: ")) process.stderr.write(`${visible(line)}\n`)
        this.stderrLines.splice(0, Math.max(0, this.stderrLines.length - STDERR_LINES))
      }
    } catch {
      // the pipe broke: what came before is kept
    }
    partial += decoder.decode()
    if (partial.trim() !== "") this.stderrLines.push(partial.trim().slice(0, 500))
  }

  /** Spawns the command and checks that it speaks our protocol version. */
  static async start(options: RemoteExecutorOptions): Promise<RemoteExecutor> {
    const { child, admitted } = "spawned" in options ? options.spawned : spawnExecutor(options.argv, options.env)
    const remote = new RemoteExecutor(options, child)
    try {
      options.onSpawn?.()
      await Promise.all([admitted, remote.checkVersion()])
    } catch (error) {
      await remote.close()
      await admitted?.catch(() => {})
      throw error
    }
    return remote
  }

  private get who(): string {
    if (this.options.ssh) return `the executor on ${this.options.ssh.host}`
    return this.options.local ? "the local executor" : `the executor command (${this.options.label})`
  }

  private async checkVersion(): Promise<void> {
    let raw: unknown
    try {
      raw = await this.client.request("capabilities", this.options.capabilitiesRequest)
    } catch (error) {
      if (error instanceof RpcResponseError) {
        throw new ExecutorLostError(`${this.who} did not answer the capabilities request (${error.message}); is it \`clanka executor\`?`)
      }
      throw error
    }
    const version = (raw as { protocolVersion?: unknown; version?: unknown } | null) ?? {}
    if (version.protocolVersion !== PROTOCOL_VERSION) {
      const theirs = typeof version.protocolVersion === "number" ? `version ${version.protocolVersion}` : "no known version"
      const their = typeof version.version === "string" ? ` (clanka ${version.version})` : ""
      throw new ExecutorLostError(
        `${this.who} speaks executor protocol ${theirs}${their} but this clanka speaks version ${PROTOCOL_VERSION} (clanka ${VERSION}); install the same clanka version on both sides`,
      )
    }
    this.handshake = this.parseCapabilities(raw)
    this.announced = this.handshake
    this.connected = true
    // Only once connected: ssh may still have been asking for a password before.
    const timing = this.options.ping ?? pingTiming()
    this.client.keepAlive({
      ...timing,
      onSilent: () => {
        this.silent = true
        return new ExecutorLostError(`${this.who} stopped answering: no reply to pings for ${seconds(timing.timeoutMs)}; check it and run again`)
      },
    })
  }

  private parseCapabilities(raw: unknown): Capabilities {
    const parsed = v.safeParse(CapabilitiesSchema, raw)
    if (!parsed.success) {
      throw new ExecutorLostError(`${this.who} sent capabilities that do not match the protocol: ${parsed.issues[0]?.message}`)
    }
    return clampCapabilities(parsed.output, this.options.local)
  }

  async capabilities(request: CapabilitiesRequest | undefined = this.options.capabilitiesRequest): Promise<Capabilities> {
    const first = this.handshake
    if (this.client.failed) throw this.client.failed
    this.handshake = undefined
    // A request that adds something (agent-side MCP tools) makes the handshake's answer stale.
    if (first && request === this.options.capabilitiesRequest) return first
    return this.parseCapabilities(await this.client.request("capabilities", request))
  }

  async *execute(options: ExecuteOptions): AsyncGenerator<string> {
    const { signal } = options
    if (signal?.aborted) throw new CancelledError()
    const queue: string[] = []
    let queued = 0
    let wake: (() => void) | undefined
    let release: (() => void) | undefined
    let requestId: number | undefined
    let settled: { value: unknown } | { error: unknown } | undefined
    let heardAt = Date.now()
    /**
     * When the first output came (and how long reading had been held back by then): the script ran
     * by then, so a real executor answers within its time limit of it, however much it prints.
     */
    let firstHeard: { at: number; held: number } | undefined
    /** The failed script's report, for options.onReport once the output before it was yielded. */
    let report = ""

    const onOutput = (output: Output) => {
      heardAt = Date.now()
      firstHeard ??= { at: heardAt, held: this.client.heldBackMs }
      if (output._tag === "Text" && output.report && options.onReport) report = keepReport(report, output.text)
      else if (output._tag === "Text") {
        queue.push(output.text)
        queued += output.text.length
        if (queued > HIGH_WATER_CHARS && !release) {
          this.client.pauseUntil(new Promise<void>((resolve) => (release = resolve)))
        }
      } else if (output._tag === "TaskComplete") options.onTaskComplete(output.summary)
      else if (output._tag === "Subagent") this.answerSubagent(output, options)
      else if (output._tag === "Spans") options.onSpans?.(output.spans)
      else if (output._tag === "Image") {
        // Only an execute that offered to take images gets them.
        if (options.images && "receive" in options.images) options.images.receive(output.image)
      } else this.answerAgentCall(output.id, output.service, output.params, options.onAgentCall)
      wake?.()
    }
    const cancel = () => {
      if (requestId !== undefined && !settled) this.client.notify("$/cancel", { id: requestId })
    }
    this.client
      .request(
        "execute",
        {
          script: options.script,
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
          ...(options.images ? { images: imagePolicy(options.images) } : {}),
          ...(options.trace !== undefined ? { trace: options.trace } : {}),
        },
        { onOutput, onSent: (id) => (requestId = id) },
      )
      .then(
        (value) => (settled = { value }),
        (error) => (settled = { error }),
      )
      .finally(() => wake?.())
    signal?.addEventListener("abort", cancel, { once: true })
    // No handshake timeout (ssh may ask for a password), but an execute must end.
    const limitMs = options.timeoutMs ?? DEFAULT_SCRIPT_TIMEOUT_MS
    const graceMs = this.options.answerGraceMs ?? ANSWER_GRACE_MS
    let deadline: Timer | undefined
    const overdue = () => {
      if (settled) return
      // Time this side held reading back (a slow consumer) is not the script's.
      const ranMs = firstHeard && Date.now() - firstHeard.at - (this.client.heldBackMs - firstHeard.held)
      if (!release && ranMs !== undefined && ranMs > limitMs + graceMs) {
        return this.client.fail(
          new ExecutorLostError(`${this.who} kept the script going past its time limit of ${seconds(limitMs)}: no result ${seconds(graceMs)} after it; check it and run again`),
        )
      }
      // Output still flowing, or reading paused because this side is slow: not a silent executor.
      if (release || Date.now() - heardAt < graceMs) return void (deadline = setTimeout(overdue, graceMs))
      this.client.fail(
        new ExecutorLostError(
          `${this.who} stopped answering: no result ${seconds(graceMs)} after the script's time limit of ${seconds(limitMs)}; check it and run again`,
        ),
      )
    }
    // A timer holds at most 2^31 - 1 ms (about 24.8 days); past that the script's own limit rules.
    deadline = setTimeout(overdue, Math.min(limitMs + graceMs, 2 ** 31 - 1))
    try {
      while (true) {
        if (queue.length > 0) {
          const text = queue.length === 1 ? queue[0]! : queue.join("")
          queue.length = 0
          queued = 0
          release?.()
          release = undefined
          yield text
          continue
        }
        if (settled) break
        await new Promise<void>((resolve) => (wake = resolve))
        wake = undefined
      }
    } finally {
      clearTimeout(deadline)
      signal?.removeEventListener("abort", cancel)
      release?.()
      cancel() // the consumer stopped early: the script must not run on unobserved
    }
    if ("error" in settled) {
      const error = settled.error
      // Ctrl-C in a terminal reaches the ssh child too, which then drops the link: that is
      // still the user cancelling, not the executor getting lost.
      if (signal?.aborted) throw new CancelledError()
      if (error instanceof RpcResponseError) {
        // Only the user's own cancel (the signal, above) is an interruption: an executor that
        // stops a script by itself is going away.
        if (error.code === ErrorCode.cancelled) throw this.shutDown()
        throw new ClankaError(`${this.who} rejected the script: ${error.message}`)
      }
      throw error
    }
    const result = v.safeParse(ExecuteResultSchema, settled.value)
    if (!result.success) throw await this.failWith({ notProtocol: `an execute result ${JSON.stringify(settled.value)}` })
    if (!result.output.ok) {
      if (report !== "") options.onReport?.(report)
      throw new ScriptError(result.output.error)
    }
  }

  private answerSubagent({ id, prompt, host, spanId }: Extract<Output, { _tag: "Subagent" }>, options: ExecuteOptions): void {
    let answer: Promise<string>
    try {
      const request = { ...(host === undefined ? {} : { host }), ...(spanId === undefined ? {} : { spanId }) }
      answer = Object.keys(request).length === 0 ? options.onSubagent(prompt) : options.onSubagent(prompt, request)
    } catch (error) {
      answer = Promise.reject(error)
    }
    answer
      .then(
        (output) => ({ id, output }),
        (error) => ({ id, output: "", error: errorMessage(error) }),
      )
      // The execute may have ended meanwhile: the executor then answers -32602, which is fine.
      .then((params) => this.client.request("subagentOutput", params))
      .catch(() => {})
  }

  /** The executor asks for an agent-side service: this process, the agent's side, runs it. */
  private answerAgentCall(id: string | number, service: string, params: unknown, onAgentCall?: AgentCall): void {
    const call =
      onAgentCall ??
      (async (name: string, value: unknown) => (await import("../tools/agent-services.ts")).runAgentService(name, value))
    Promise.resolve()
      .then(() => call(service, params))
      .then(
        (result) => ({ id, result }),
        (error) => ({ id, error: errorMessage(error) }),
      )
      .then((answer) => this.client.request("agentCallResult", fitAnswer(answer)))
      .catch(() => {})
  }

  async executeUnsafe(tool: string, params: unknown, options: { onAgentCall?: AgentCall } = {}): Promise<unknown> {
    const onOutput = (output: Output) => {
      if (output._tag === "AgentCall") this.answerAgentCall(output.id, output.service, output.params, options.onAgentCall)
    }
    try {
      return await this.client.request("executeUnsafe", { tool, params }, { onOutput })
    } catch (error) {
      if (!(error instanceof RpcResponseError)) throw error
      if (error.code === ErrorCode.cancelled) throw this.shutDown()
      if (error.code === ErrorCode.invalidParams) {
        const data = error.data as { unknownTool?: unknown; tools?: unknown } | undefined
        if (Array.isArray(data?.tools) && data.unknownTool === tool) throw new UnknownToolError(tool, data.tools.map(String))
        if (error.message.startsWith(`${tool}: invalid parameters`) && Array.isArray(error.data)) {
          throw new InvalidParamsError(tool, error.data)
        }
      }
      throw new ToolError(error.message)
    }
  }

  async close(): Promise<void> {
    if (this.closing) return
    this.closing = true
    this.client.fail(new ExecutorLostError(`${this.who} was closed`))
    void this.input.end()
    if (!this.silent && (await this.exitWithin(2000))) return
    this.child.kill("SIGTERM")
    if (await this.exitWithin(1000)) return
    this.child.kill("SIGKILL")
    await this.exitWithin(1000)
  }

  private shutDown(): ExecutorLostError {
    return new ExecutorLostError(`${this.who} was shut down while it was working; check it and run again`)
  }

  private exitWithin(ms: number): Promise<boolean> {
    return settlesWithin(this.exited, ms)
  }

  private async failWith(reason: { notProtocol?: string }): Promise<Error> {
    const error = await this.lostError(reason)
    this.client.fail(error)
    return error
  }

  /** Words the reason the link ended as one line that says what to do. */
  private async lostError(reason: { notProtocol?: string; ended?: true; error?: unknown }): Promise<Error> {
    if (this.closing) return new ExecutorLostError(`${this.who} was closed`)
    const ssh = this.options.ssh
    if (reason.notProtocol !== undefined) {
      this.child.kill("SIGKILL")
      const hint = ssh
        ? `check that nothing in the login files on ${ssh.host} prints to stdout and that \`${ssh.remoteBin} executor\` runs clanka`
        : "the command must run `clanka executor` and print nothing else on stdout"
      return new ExecutorLostError(`${this.who} wrote something that is not protocol: ${reason.notProtocol}; ${hint}`)
    }
    // stdout ended: the process is exiting; give it a moment to report how.
    if (!(await this.exitWithin(500))) this.child.kill("SIGKILL")
    const exit = await this.exited
    // A moment's turn of the event loop first: a Ctrl-C that reached this process and ssh at once
    // is handled before the loss it caused is reported. Then the last stderr chunk may still arrive.
    await Bun.sleep(10)
    await settlesWithin(this.stderrRead, 100)
    const said = lastWords(this.stderrLines)
    const detail = said ? `: ${said.replace(/[.;]+$/, "")}` : ""
    const how = exit.code !== null ? `exit code ${exit.code}` : `signal ${exit.signal}`
    if (ssh) {
      if (exit.code === 255 && !this.connected) {
        return new ExecutorLostError(`cannot connect to ${ssh.host} with ssh${detail}; check that \`ssh ${ssh.host}\` works`)
      }
      if (exit.code === 127) {
        return new RemoteClankaMissingError(
          `\`${ssh.remoteBin}\` was not found on ${ssh.host}; install clanka there or pass --remote-bin PATH (or set CLANKA_REMOTE_BIN)`,
        )
      }
      if (exit.code === 255) {
        return new ExecutorLostError(`lost the ssh connection to ${ssh.host}${detail}; check the link and run again`)
      }
    } else if (exit.code === 127) {
      return new ExecutorLostError(`the executor command was not found (${this.options.label})${detail}; check --executor`)
    }
    if (!this.connected && said?.startsWith("clanka: ")) {
      // clanka on the far side already said what is wrong, in one line that says what to do.
      return new ExecutorLostError(`${this.who} failed: ${said.slice("clanka: ".length)}`)
    }
    if (!this.connected) {
      return new ExecutorLostError(`${this.who} exited (${how}) before answering${detail}; check that it runs \`clanka executor\``)
    }
    return new ExecutorLostError(`${this.who} stopped unexpectedly (${how})${detail}; check the host and run again`)
  }
}

/** What crosses the wire of an execute's image receiver: its limits, or the refusal. */
function imagePolicy(images: NonNullable<ExecuteOptions["images"]>): ImagePolicy {
  if ("refused" in images) return { refused: images.refused }
  return { maxBytes: images.maxBytes, ...(images.maxSide === undefined ? {} : { maxSide: images.maxSide }) }
}

/**
 * The line of a dead executor's stderr that says why. Bun ends an uncaught error's report with its
 * version line (`Bun v1.4.5 (Linux x64)`): the error's own line before the stack is the one to show.
 */
function lastWords(lines: readonly string[]): string | undefined {
  const last = lines.at(-1)
  if (last === undefined || !/^Bun v\d/.test(last)) return last
  const error = lines.findLast((line) => /^(\w*Error|error)\b.*:/.test(line))
  return error ?? last
}
